"""Writes what the tenth blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (gnn, quant, aux),
                          float32 (edge lists and labels int32), the weights by TF1 name
                          (every name with a '/' is a weight, the others the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind10_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def gnn_arrays() -> dict[str, np.ndarray]:
    """A directed graph of 7 nodes and 12 edges (src -> dst, no self-loop, no duplicate; the
    in-degrees 2, 1, 2, 2, 2, 2, 1, so a mean of the messages is not their sum, and the
    graph is not symmetric, so the reversed edges are another graph), 3 features and a
    target per node; one message-passing layer (3 -> 4 messages summed at each node's
    in-edges, plus the node's own 3 -> 4 transform, tanh) and a 4 -> 1 regression."""
    rng = np.random.RandomState(10601)
    return {"x": _f(rng.normal(size=(7, 3))),
            "y": _f(rng.normal(size=(7, 1))),
            "src": np.array([0, 1, 2, 3, 4, 5, 6, 0, 2, 4, 1, 5], dtype=np.int32),
            "dst": np.array([1, 2, 3, 4, 5, 6, 0, 3, 5, 0, 4, 2], dtype=np.int32),
            "msg/kernel": _f(rng.normal(0.0, 0.5, size=(3, 4))),
            "self/kernel": _f(rng.normal(0.0, 0.5, size=(3, 4))),
            "self/bias": _f([0.05, -0.1, 0.0, 0.1]),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(4, 1))),
            "out/bias": _f([0.0])}


def quant_arrays() -> dict[str, np.ndarray]:
    """Twelve examples of 3 features and a skewed target (a gamma draw: its quantiles are
    not symmetric about the median); a 3 -> 5 (tanh) -> 3 network predicting the 0.1, 0.5
    and 0.9 quantiles."""
    rng = np.random.RandomState(10602)
    x = rng.normal(size=(12, 3))
    y = rng.gamma(2.0, 1.0, size=(12, 1)) + 0.3 * x[:, :1]
    return {"x": _f(x), "y": _f(y),
            "hid/kernel": _f(rng.normal(0.0, 0.6, size=(3, 5))),
            "hid/bias": _f([0.1, 0.0, -0.1, 0.05, 0.0]),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(5, 3))),
            "out/bias": _f([0.8, 1.6, 3.0])}


def aux_arrays() -> dict[str, np.ndarray]:
    """Eight examples of 4 features and a class in {0, 1, 2} each (int32); a 4 -> 6 (tanh)
    layer whose activations carry a penalty (0.05 times their mean square) and a 6 -> 3
    classifier."""
    rng = np.random.RandomState(10603)
    return {"x": _f(rng.normal(size=(8, 4))),
            "labels": np.array([0, 1, 2, 1, 0, 2, 2, 1], dtype=np.int32),
            "hid/kernel": _f(rng.normal(0.0, 0.7, size=(4, 6))),
            "hid/bias": _f([0.1, -0.1, 0.2, 0.0, 0.05, -0.05]),
            "out/kernel": _f(rng.normal(0.0, 0.5, size=(6, 3))),
            "out/bias": _f([0.0, 0.1, -0.1])}


ARRAYS = {"gnn": gnn_arrays, "quant": quant_arrays, "aux": aux_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
