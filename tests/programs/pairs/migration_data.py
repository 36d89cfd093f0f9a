"""The data and initial weights both migration programs start from (seeded, explicit).

TensorFlow 2.21's Keras 3 has neither `tf.compat.v1.layers` nor `DeterministicRandomTestTool`,
so the two programs cannot share a random initializer: they share these arrays instead, as the
migration guide suggests when the initializers differ.
"""

from __future__ import annotations

import numpy as np

SIZES = (4, 8, 6, 3)  # input, hidden 1, hidden 2, classes
BATCH = 16
LEARNING_RATE = 0.1
STEPS = 3


def make_data(perturb: bool = False) -> dict[str, np.ndarray]:
    """Inputs, one-hot labels and the three layers' weights; `perturb` changes one weight of
    the first layer (the deliberate divergence)."""
    rng = np.random.RandomState(11)
    out = {
        "x": rng.uniform(-1.0, 1.0, (BATCH, SIZES[0])).astype("float32"),
        "y": np.eye(SIZES[-1], dtype="float32")[rng.randint(0, SIZES[-1], BATCH)],
    }
    for k in range(3):
        out[f"w{k + 1}"] = (rng.randn(SIZES[k], SIZES[k + 1]) * 0.5).astype("float32")
        out[f"b{k + 1}"] = rng.uniform(-0.1, 0.1, SIZES[k + 1]).astype("float32")
    if perturb:
        out["w1"][0, 0] += 0.5
    return out
