"""Writes what the ninth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (norm, tower, lse),
                          float32 (labels int32), the weights by TF1 name (every name with a
                          '/' is a weight, the others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind9_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def norm_arrays() -> dict[str, np.ndarray]:
    """Ten examples of 3 raw features on very different scales (means 3, -2, 12; spreads 2,
    0.5, 4: what a standardization layer is for) and a target each; a 3 -> 4 (selu) -> 1
    regression of the standardized features."""
    rng = np.random.RandomState(9601)
    raw = rng.normal(size=(10, 3)) * [2.0, 0.5, 4.0] + [3.0, -2.0, 12.0]
    return {"x": _f(raw),
            "y": _f(rng.normal(size=(10, 1))),
            "hid/kernel": _f(rng.normal(0.0, 0.7, size=(3, 4))),
            "hid/bias": _f([0.05, -0.1, 0.15, 0.02]),
            "out/kernel": _f(rng.normal(0.0, 0.4, size=(4, 1))),
            "out/bias": _f([0.1])}


def tower_arrays() -> dict[str, np.ndarray]:
    """Eight (user, item) pairs of 3 features each and a 0/1 click; two towers (3 -> 4 tanh
    each, their own weights) whose dot product is the click's logit."""
    rng = np.random.RandomState(9602)
    return {"xu": _f(rng.normal(size=(8, 3))),
            "xv": _f(rng.normal(size=(8, 3))),
            "click": _f([[1], [0], [0], [1], [1], [0], [1], [0]]),
            "user/kernel": _f(rng.normal(0.0, 0.8, size=(3, 4))),
            "user/bias": _f([0.1, -0.05, 0.0, 0.2]),
            "item/kernel": _f(rng.normal(0.0, 0.8, size=(3, 4))),
            "item/bias": _f([-0.1, 0.05, 0.15, 0.0])}


def lse_arrays() -> dict[str, np.ndarray]:
    """Six sequences of 3 time steps of 4 features and a class in {0, 1, 2} each (int32); a
    per-time-step 4 -> 5 (tanh) layer, the mean over time, a 5 -> 3 classifier. Trained on
    two minibatches of 3 (examples 0-2, then 3-5, twice)."""
    rng = np.random.RandomState(9603)
    return {"x": _f(rng.normal(size=(6, 3, 4))),
            "labels": np.array([0, 2, 1, 1, 0, 2], dtype=np.int32),
            "hid/kernel": _f(rng.normal(0.0, 0.6, size=(4, 5))),
            "hid/bias": _f([0.1, 0.0, -0.1, 0.05, 0.2]),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(5, 3))),
            "out/bias": _f([0.0, 0.1, -0.1])}


ARRAYS = {"norm": norm_arrays, "tower": tower_arrays, "lse": lse_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
