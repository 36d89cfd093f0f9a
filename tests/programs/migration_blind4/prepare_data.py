"""Writes what the fourth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (nadam, upsample, gated,
                          bag, lion), float32 (int32 token ids and labels), the weights by
                          TF1 name (every name with a '/' is a weight, the others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind4_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def nadam_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 6 features, an imbalanced binary label (3 positives); 6 -> 8 PReLU
    (slopes 0.25) -> 1 logit."""
    rng = np.random.RandomState(9101)
    return {"x": _f(rng.normal(size=(8, 6))),
            "y": _f([[1], [0], [0], [1], [0], [0], [1], [0]]),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(6, 8))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(8,))),
            "prelu/alpha": _f(np.full((8,), 0.25)),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(8, 1))),
            "out/bias": _f([0.05])}


def upsample_arrays() -> dict[str, np.ndarray]:
    """Four 4x4 one-channel images and their 8x8 targets (a smooth upscaling plus noise);
    conv 3x3 (1 -> 2, relu), bilinear resize to 8x8, conv 3x3 (2 -> 1)."""
    rng = np.random.RandomState(9102)
    x = rng.normal(size=(4, 4, 4, 1))
    target = np.repeat(np.repeat(x, 2, axis=1), 2, axis=2) * 0.5 + rng.normal(0, 0.1, (4, 8, 8, 1))
    return {"x": _f(x), "y": _f(target),
            "conv1/kernel": _f(rng.normal(0.0, 0.4, size=(3, 3, 1, 2))),
            "conv1/bias": _f([0.1, 0.05]),
            "conv2/kernel": _f(rng.normal(0.0, 0.4, size=(3, 3, 2, 1))),
            "conv2/bias": _f([0.0])}


def gated_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 5 features, binary labels (0/1); a gated layer 5 -> 6 (a linear value
    times a hard-sigmoid gate), a 6 -> 1 score."""
    rng = np.random.RandomState(9103)
    return {"x": _f(rng.normal(size=(8, 5))),
            "y": _f([[1], [0], [1], [1], [0], [0], [1], [0]]),
            "value/kernel": _f(rng.normal(0.0, 0.5, size=(5, 6))),
            "value/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "gate/kernel": _f(rng.normal(0.0, 0.5, size=(5, 6))),
            "gate/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(6, 1))),
            "out/bias": _f([0.0])}


def bag_arrays() -> dict[str, np.ndarray]:
    """Six sentences of up to 5 token ids (1..6; 0 pads the end), 3 classes; an embedding
    table of 7 rows (row 0 the pad's, never looked up by TF1) of 4, a 4 -> 3 classifier on the
    mean of a sentence's embeddings."""
    rng = np.random.RandomState(9104)
    ids = np.array([[1, 4, 2, 0, 0], [3, 3, 5, 6, 1], [2, 0, 0, 0, 0],
                    [6, 5, 4, 0, 0], [1, 2, 3, 4, 0], [5, 1, 0, 0, 0]], np.int32)
    return {"ids": ids, "labels": np.array([0, 2, 1, 2, 0, 1], np.int32),
            "embedding/embeddings": _f(rng.normal(0.0, 0.6, size=(7, 4))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(4, 3))),
            "out/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


def lion_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 4 features, 2 regression targets; 4 -> 6 tanh -> 2."""
    rng = np.random.RandomState(9105)
    x = rng.normal(size=(8, 4))
    return {"x": _f(x), "y": _f(np.stack([x[:, 0] - x[:, 1], 0.5 * x[:, 2] * x[:, 3]], 1)
                               + rng.normal(0, 0.1, (8, 2))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(6, 2))),
            "out/bias": _f(rng.uniform(-0.1, 0.1, size=(2,)))}


ARRAYS = {"nadam": nadam_arrays, "upsample": upsample_arrays, "gated": gated_arrays,
          "bag": bag_arrays, "lion": lion_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
