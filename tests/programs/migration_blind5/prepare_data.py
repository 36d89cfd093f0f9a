"""Writes what the fifth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (grl, prox, pad, bcast),
                          float32, the weights by TF1 name (every name with a '/' is a weight,
                          the others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind5_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def grl_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 5 features, a class label and a domain label (0/1 each); a shared
    5 -> 6 tanh feature layer, a 6 -> 1 label head and, behind a gradient reversal, a 6 -> 1
    domain head."""
    rng = np.random.RandomState(9201)
    return {"x": _f(rng.normal(size=(8, 5))),
            "y": _f([[1], [0], [1], [0], [0], [1], [1], [0]]),
            "d": _f([[0], [0], [0], [0], [1], [1], [1], [1]]),
            "feature/kernel": _f(rng.normal(0.0, 0.5, size=(5, 6))),
            "feature/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "label/kernel": _f(rng.normal(0.0, 0.5, size=(6, 1))),
            "label/bias": _f([0.05]),
            "domain/kernel": _f(rng.normal(0.0, 0.5, size=(6, 1))),
            "domain/bias": _f([-0.05])}


def prox_arrays() -> dict[str, np.ndarray]:
    """Ten examples of 6 features, a linear target that uses only three of them; a 6 -> 1
    linear regression whose kernel starts with small weights on the unused features (the
    L1 proximal step drives them to 0)."""
    rng = np.random.RandomState(9202)
    x = rng.normal(size=(10, 6))
    y = x[:, :1] * 0.8 - x[:, 1:2] * 0.5 + x[:, 2:3] * 0.3 + rng.normal(0, 0.05, (10, 1))
    return {"x": _f(x), "y": _f(y),
            "linear/kernel": _f([[0.6], [-0.3], [0.2], [0.03], [-0.02], [0.045]]),
            "linear/bias": _f([0.1])}


def pad_arrays() -> dict[str, np.ndarray]:
    """Four 6x6 one-channel images and a scalar target each; a 3x3 stride-2 convolution
    (1 -> 2, relu; 'SAME' gives 3x3), flattened to 18, a 18 -> 1 output."""
    rng = np.random.RandomState(9203)
    x = rng.normal(size=(4, 6, 6, 1))
    return {"x": _f(x), "y": _f(x[:, 1:4, 1:4, 0].mean(axis=(1, 2))[:, None]
                               + rng.normal(0, 0.1, (4, 1))),
            "conv/kernel": _f(rng.normal(0.0, 0.4, size=(3, 3, 1, 2))),
            "conv/bias": _f([0.1, 0.05]),
            "out/kernel": _f(rng.normal(0.0, 0.3, size=(18, 1))),
            "out/bias": _f([0.0])}


def bcast_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 4 features and a scalar target stored as a vector (shape (8,), as
    a CSV column loads); 4 -> 5 swish -> 1."""
    rng = np.random.RandomState(9204)
    x = rng.normal(size=(8, 4))
    return {"x": _f(x), "y": _f(x[:, 0] * 0.7 - x[:, 2] * 0.4 + 0.3 + rng.normal(0, 0.1, 8)),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 5))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(5,))),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(5, 1))),
            "out/bias": _f([0.0])}


ARRAYS = {"grl": grl_arrays, "prox": prox_arrays, "pad": pad_arrays, "bcast": bcast_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
