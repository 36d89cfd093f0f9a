"""Writes what the third blind corpus's programs start from, as a user would have it from an
earlier run (run once, not recorded), so that both sides of every pair start from the same
values:

  DATA_DIR/<model>.npz    the batch and the weights of each model (siamese, ema, maxnorm,
                          twoopt, dqn), float32 (int32 actions), the weights by TF1 name
                          (every name with a '/' is a weight, the others are the batch)

python prepare_data.py DATA_DIR

The arrays come from the functions below (numpy only: verify.py's numpy models read the same
values through blind3_models.py without TensorFlow).
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

F32 = np.float32


def _f(a: object) -> np.ndarray:
    return np.asarray(a, F32)


def siamese_arrays() -> dict[str, np.ndarray]:
    """Eight pairs of 4-feature inputs, y = 1 where the two are alike (the second a noisy
    copy of the first), 0 where they are unrelated; a tower 4 -> 6 tanh -> 3."""
    rng = np.random.RandomState(9001)
    x1 = rng.normal(size=(8, 4))
    y = np.array([[1], [0], [1], [0], [0], [1], [0], [1]])
    x2 = np.where(y == 1, x1 + rng.normal(0.0, 0.3, size=(8, 4)), rng.normal(size=(8, 4)))
    return {"x1": _f(x1), "x2": _f(x2), "y": _f(y),
            "hidden/kernel": _f(rng.normal(0.0, 0.6, size=(4, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "embed/kernel": _f(rng.normal(0.0, 0.5, size=(6, 3))),
            "embed/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


def ema_arrays() -> dict[str, np.ndarray]:
    """Counts (Poisson, mean 2) of 8 examples of 4 features; 4 -> 6 relu -> 1 log-rate."""
    rng = np.random.RandomState(9002)
    return {"x": _f(rng.normal(size=(8, 4))),
            "y": _f(rng.poisson(2.0, size=(8, 1))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "rate/kernel": _f(rng.normal(0.0, 0.5, size=(6, 1))),
            "rate/bias": _f([0.2])}


def maxnorm_arrays() -> dict[str, np.ndarray]:
    """Multi-label data (8 examples, 5 features, 3 labels); 5 -> 6 relu -> 3 logits, the hidden
    kernel's columns about as long as the max-norm bound (1.0), some longer, some shorter."""
    rng = np.random.RandomState(9003)
    return {"x": _f(rng.normal(size=(8, 5))),
            "y": _f(rng.binomial(1, 0.4, size=(8, 3))),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(5, 6))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(6,))),
            "logits/kernel": _f(rng.normal(0.0, 0.5, size=(6, 3))),
            "logits/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


def twoopt_arrays() -> dict[str, np.ndarray]:
    """Six examples of 4 features and a target distribution over 3 classes each; an encoder
    4 -> 5 tanh and a head 5 -> 3."""
    rng = np.random.RandomState(9004)
    t = 1.5 * rng.normal(size=(6, 3))
    soft = np.exp(t) / np.exp(t).sum(axis=1, keepdims=True)
    return {"x": _f(rng.normal(size=(6, 4))), "y": _f(soft),
            "encoder/kernel": _f(rng.normal(0.0, 0.5, size=(4, 5))),
            "encoder/bias": _f(rng.uniform(-0.1, 0.1, size=(5,))),
            "head/kernel": _f(rng.normal(0.0, 0.5, size=(5, 3))),
            "head/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


def dqn_arrays() -> dict[str, np.ndarray]:
    """Six transitions (state of 4, one of 3 actions, reward, next state, done) from a replay
    buffer; a Q-network 4 -> 8 relu -> 3."""
    rng = np.random.RandomState(9005)
    return {"states": _f(rng.normal(size=(6, 4))),
            "actions": np.array([0, 2, 1, 1, 0, 2], np.int32),
            "rewards": _f(rng.uniform(-1.0, 1.0, size=(6,))),
            "next_states": _f(rng.normal(size=(6, 4))),
            "done": _f([0, 0, 1, 0, 0, 1]),
            "hidden/kernel": _f(rng.normal(0.0, 0.5, size=(4, 8))),
            "hidden/bias": _f(rng.uniform(-0.1, 0.1, size=(8,))),
            "q/kernel": _f(rng.normal(0.0, 0.5, size=(8, 3))),
            "q/bias": _f(rng.uniform(-0.1, 0.1, size=(3,)))}


ARRAYS = {"siamese": siamese_arrays, "ema": ema_arrays, "maxnorm": maxnorm_arrays,
          "twoopt": twoopt_arrays, "dqn": dqn_arrays}


def main(out: str) -> None:
    os.makedirs(out, exist_ok=True)
    for name, make in ARRAYS.items():
        arrays: dict[str, Any] = make()
        np.savez(os.path.join(out, f"{name}.npz"), **arrays)


if __name__ == "__main__":
    main(sys.argv[1])
