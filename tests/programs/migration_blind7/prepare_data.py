"""Writes what the seventh blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (ae, focal, mom), float32,
                          the weights by TF1 name (every name with a '/' is a weight, the
                          others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind7_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def ae_arrays() -> dict[str, np.ndarray]:
    """Eight "images" of 6 intensities in [0.05, 0.95] (the autoencoder's input and its
    target); a 6 -> 3 (tanh) -> 6 (sigmoid) autoencoder whose reconstructions start well inside
    (0, 1): no probability near Keras' clip to [1e-7, 1 - 1e-7]."""
    rng = np.random.RandomState(9401)
    return {"x": _f(rng.uniform(0.05, 0.95, size=(8, 6))),
            "enc/kernel": _f(rng.normal(0.0, 0.5, size=(6, 3))),
            "enc/bias": _f([0.05, -0.05, 0.0]),
            "dec/kernel": _f(rng.normal(0.0, 0.5, size=(3, 6))),
            "dec/bias": _f(rng.normal(0.0, 0.2, size=(6,)))}


def focal_arrays() -> dict[str, np.ndarray]:
    """Ten examples of 3 features, a 0/1 label each (3 positives: the rare class the focal
    loss's alpha is about); a 3 -> 1 logistic classifier."""
    rng = np.random.RandomState(9402)
    x = rng.normal(size=(10, 3))
    y = np.array([1, 0, 0, 1, 0, 0, 0, 1, 0, 0], dtype=np.float64)[:, None]
    return {"x": _f(x), "y": _f(y),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(3, 1))),
            "out/bias": _f([-0.2])}


def mom_arrays() -> dict[str, np.ndarray]:
    """Twelve examples of 3 features and a real target; a 3 -> 4 (tanh) -> 1 regression."""
    rng = np.random.RandomState(9403)
    x = rng.normal(size=(12, 3))
    y = np.sin(x @ np.array([[0.8], [-0.5], [0.3]])) + 0.1 * rng.normal(size=(12, 1))
    return {"x": _f(x), "y": _f(y),
            "hid/kernel": _f(rng.normal(0.0, 0.5, size=(3, 4))),
            "hid/bias": _f([0.1, -0.1, 0.05, 0.0]),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(4, 1))),
            "out/bias": _f([0.0])}


ARRAYS = {"ae": ae_arrays, "focal": focal_arrays, "mom": mom_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
