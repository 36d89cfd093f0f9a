"""Writes what the sixth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (kld, pois), float32, the
                          weights by TF1 name (every name with a '/' is a weight, the others
                          the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind6_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def kld_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 4 features and a target distribution over 3 classes each (a
    teacher's softmax: every probability well above 0); a 4 -> 3 softmax classifier."""
    rng = np.random.RandomState(9301)
    x = rng.normal(size=(8, 4))
    z = rng.normal(0.0, 1.0, size=(8, 3))
    t = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    return {"x": _f(x), "t": _f(t),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(4, 3))),
            "out/bias": _f([0.05, -0.05, 0.0])}


def pois_arrays() -> dict[str, np.ndarray]:
    """Ten examples of 3 features and a count target each (0 to a few: several above 1, where
    the full Poisson loss's Stirling term is not 0); a 3 -> 1 log-linear rate whose bias
    starts at 1 (the linear output stays positive over the three steps)."""
    rng = np.random.RandomState(9302)
    x = rng.normal(0.0, 0.3, size=(10, 3))
    y = rng.poisson(np.exp(1.0 + x @ np.array([0.5, -0.3, 0.2])))[:, None]
    return {"x": _f(x), "y": _f(y),
            "rate/kernel": _f(rng.normal(0.0, 0.2, size=(3, 1))),
            "rate/bias": _f([1.0])}


ARRAYS = {"kld": kld_arrays, "pois": pois_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
