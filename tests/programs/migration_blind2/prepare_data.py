"""Writes what the second blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (tagger, deconv, hinge,
                          tied, distill), float32 (int32 tokens and labels), by TF1 name

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind2_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def tagger_arrays() -> dict[str, np.ndarray]:
    """A sequence tagger: 3 sentences of 4 tokens (vocabulary 7, token 0 pads the end), tag 0
    on the pads; an embedding of 3, a bidirectional simple RNN of 3 a direction, 4 tags."""
    rng = np.random.RandomState(8001)
    x = np.array([[3, 1, 4, 6], [2, 5, 1, 0], [6, 2, 0, 0]], np.int32)
    y = np.array([[1, 2, 3, 1], [2, 1, 3, 0], [3, 3, 0, 0]], np.int32)
    out = {"x": x, "y": y, "embedding/embeddings": _f(rng.normal(0.0, 0.6, size=(7, 3)))}
    for d in ("fwd", "bwd"):
        out[f"{d}/kernel"] = _f(rng.normal(0.0, 0.5, size=(3, 3)))
        out[f"{d}/recurrent_kernel"] = _f(rng.normal(0.0, 0.4, size=(3, 3)))
        out[f"{d}/bias"] = _f(rng.uniform(-0.1, 0.1, size=(3,)))
    out["tags/kernel"] = _f(rng.normal(0.0, 0.5, size=(6, 4)))
    out["tags/bias"] = _f(rng.uniform(-0.1, 0.1, size=(4,)))
    return out


def deconv_arrays() -> dict[str, np.ndarray]:
    """A decoder: latent codes (2, 2, 2, 2) up to 8x8 images by two stride-2 transposed
    convolutions (3x3, 'same'); kernels in tf.nn.conv2d_transpose's layout (h, w, out, in)."""
    rng = np.random.RandomState(8002)
    return {"x": _f(rng.normal(size=(2, 2, 2, 2))),
            "y": _f(rng.uniform(0.0, 1.0, size=(2, 8, 8, 1))),
            "up1/kernel": _f(rng.normal(0.0, 0.5, size=(3, 3, 2, 2))),
            "up1/bias": _f(rng.uniform(-0.1, 0.1, size=(2,))),
            "up2/kernel": _f(rng.normal(0.0, 0.5, size=(3, 3, 1, 2))),
            "up2/bias": _f(rng.uniform(-0.1, 0.1, size=(1,)))}


def hinge_arrays() -> dict[str, np.ndarray]:
    """A binary classifier (5 -> 6 tanh -> 1 score) trained with the hinge loss, 0/1 labels."""
    rng = np.random.RandomState(8003)
    return {"x": _f(rng.normal(size=(8, 5))),
            "y": _f(np.array([[1], [0], [0], [1], [1], [0], [1], [0]])),
            "hidden/kernel": _f(rng.normal(0.0, 0.6, size=(5, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "score/kernel": _f(rng.normal(0.0, 0.5, size=(6, 1))),
            "score/bias": _f(rng.uniform(-0.1, 0.1, size=(1,)))}


def tied_arrays() -> dict[str, np.ndarray]:
    """A next-token model whose output projection is the embedding transposed (vocabulary 6,
    width 4): 4 contexts of 3 tokens, the token that follows each."""
    rng = np.random.RandomState(8004)
    return {"x": np.array([[1, 4, 2], [0, 3, 5], [2, 2, 1], [5, 0, 4]], np.int32),
            "y": np.array([3, 1, 4, 2], np.int32),
            "embedding/embeddings": _f(rng.normal(0.0, 0.6, size=(6, 4))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 4))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(4,))),
            "out/bias": _f(rng.uniform(-0.2, 0.2, size=(6,)))}


def distill_arrays() -> dict[str, np.ndarray]:
    """A student MLP (4 -> 5 relu -> 3) and the teacher's logits for its 6 examples."""
    rng = np.random.RandomState(8005)
    return {"x": _f(rng.normal(size=(6, 4))),
            "y": _f(rng.normal(0.0, 2.0, size=(6, 3))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 5))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(5,))),
            "logits/kernel": _f(rng.normal(0.0, 0.5, size=(5, 3))),
            "logits/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


ARRAYS = {"tagger": tagger_arrays, "deconv": deconv_arrays, "hinge": hinge_arrays,
          "tied": tied_arrays, "distill": distill_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
