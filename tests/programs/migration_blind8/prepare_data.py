"""Writes what the eighth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (cos, msle, chinge),
                          float32 (chinge's labels int32), the weights by TF1 name (every
                          name with a '/' is a weight, the others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind8_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def cos_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 5 features and a unit target direction in 4-space each; a linear
    5 -> 4 embedding whose outputs are far from the zero vector (no norm near
    l2_normalize's epsilon)."""
    rng = np.random.RandomState(9501)
    t = rng.normal(size=(8, 4))
    return {"x": _f(rng.normal(size=(8, 5))),
            "t": _f(t / np.linalg.norm(t, axis=1, keepdims=True)),
            "emb/kernel": _f(rng.normal(0.0, 0.6, size=(5, 4))),
            "emb/bias": _f([0.3, -0.2, 0.1, 0.4])}


def msle_arrays() -> dict[str, np.ndarray]:
    """Ten examples of 3 features and a positive target (a rate in [0.1, 3]); a 3 -> 4 (tanh)
    -> 1 linear regression some of whose first predictions are negative (in (-1, 0): where
    log1p is defined and Keras' mean squared logarithmic error clips to 1e-7)."""
    rng = np.random.RandomState(9502)
    return {"x": _f(rng.normal(size=(10, 3))),
            "y": _f(rng.uniform(0.1, 3.0, size=(10, 1))),
            "hid/kernel": _f(rng.normal(0.0, 0.6, size=(3, 4))),
            "hid/bias": _f([0.1, -0.1, 0.05, 0.0]),
            "out/kernel": _f(rng.normal(0.0, 0.3, size=(4, 1))),
            "out/bias": _f([0.35])}


def chinge_arrays() -> dict[str, np.ndarray]:
    """Nine examples of 4 features (large: some hidden pre-activations above relu6's cap of
    6) and a class in {0, 1, 2} each (int32: TF1 one-hot encodes them in the graph); a
    4 -> 6 (relu6) -> 3 scorer."""
    rng = np.random.RandomState(9503)
    return {"x": _f(rng.normal(0.0, 2.5, size=(9, 4))),
            "labels": np.array([0, 1, 2, 1, 0, 2, 2, 1, 0], dtype=np.int32),
            "hid/kernel": _f(rng.normal(0.0, 1.0, size=(4, 6))),
            "hid/bias": _f([0.5, 0.2, 0.3, 0.1, 0.4, 0.2]),
            "out/kernel": _f(rng.normal(0.0, 0.3, size=(6, 3))),
            "out/bias": _f([0.05, 0.1, -0.15])}


ARRAYS = {"cos": cos_arrays, "msle": msle_arrays, "chinge": chinge_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
