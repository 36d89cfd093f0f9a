"""What the TF1 program and its TF2 rewrites share: sizes, schedule, data, initial weights.

TensorFlow 2.21's Keras 3 has neither `tf.compat.v1.layers` nor `DeterministicRandomTestTool`,
so the two sides cannot draw the same random initial weights: as the migration guide suggests,
both start from the same numpy arrays (TF1 through `get_variable(initializer=...)`, TF2
through `keras.initializers.Constant`), made here from a fixed seed.

The model is the guide's: three dense layers (ReLU after the first only), softmax cross
entropy, a polynomial-decay learning rate and plain gradient descent, on one small fixed
batch for a few steps.
"""

from __future__ import annotations

import numpy as np

IN, H1, H2, C = 4, 6, 5, 3  # input, layer 1, layer 2, classes (distinct on purpose)
BATCH = 8
STEPS = 3
# polynomial decay: lr(k) = (LR0 - LR_END) * (1 - k / DECAY) ** POWER + LR_END
LR0, DECAY, LR_END, POWER = 0.1, 10, 0.01, 1.0


def make_data() -> dict[str, np.ndarray]:
    """The batch (x, one-hot y) and the initial weights dense{,_1,_2}: w1/b1, w2/b2, w3/b3."""
    rng = np.random.RandomState(18)
    out = {
        "x": rng.uniform(-1.0, 1.0, (BATCH, IN)).astype("float32"),
        "y": np.eye(C, dtype="float32")[rng.randint(0, C, BATCH)],
    }
    sizes = (IN, H1, H2, C)
    for k in range(3):
        out[f"w{k + 1}"] = (rng.randn(sizes[k], sizes[k + 1]) * 0.6).astype("float32")
        out[f"b{k + 1}"] = rng.uniform(-0.2, 0.2, sizes[k + 1]).astype("float32")
    return out
