"""The seeded inputs and initial weights every variant of `mlp.py` starts from.

Apart from the program so the tests can recompute what the runs hold without TensorFlow.
"""

from __future__ import annotations

import numpy as np


def make_data() -> dict[str, np.ndarray]:
    """The seeded inputs and initial weights every variant starts from."""
    rng = np.random.RandomState(7)
    return {
        # the first rows are zero: with negative biases their hidden units are all zero
        "x": np.concatenate([np.zeros((4, 4)), rng.uniform(0.0, 3.0, (28, 4))]).astype("float32"),
        "labels": np.eye(3, dtype="float32")[rng.randint(0, 3, 32)],
        "w1": (rng.randn(4, 16) * 2.0).astype("float32"),
        "b1": rng.uniform(-1.0, -0.1, 16).astype("float32"),
        "w2": (rng.randn(16, 3) * 0.5).astype("float32"),
        "b2": np.zeros(3, "float32"),
    }
