"""The arrays every program of this folder starts from (inputs, targets, weights), drawn from
one seeded generator so both runs of a pair read the same values."""
import numpy as np


def arrays():
    rng = np.random.RandomState(29)
    return {"x": (rng.randn(8, 4) * 1.5).astype(np.float32),
            "y": rng.randn(8, 1).astype(np.float32),
            "w1": (rng.randn(4, 3) * 0.8).astype(np.float32),
            "b1": (rng.randn(3) * 0.1).astype(np.float32),
            "w2": (rng.randn(3, 1) * 0.5).astype(np.float32),
            "b2": np.zeros(1, np.float32)}
