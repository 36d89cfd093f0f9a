"""The arrays every program of this folder starts from (sequences, targets, weights), drawn
from one seeded generator so both runs of a pair read the same values."""
import numpy as np


def arrays():
    rng = np.random.RandomState(11)
    return {"x": rng.randn(6, 10, 2).astype(np.float32),
            "y": rng.randn(6, 1).astype(np.float32),
            "conv/kernel": (rng.randn(3, 2, 3) * 0.6).astype(np.float32),
            "conv/bias": (rng.randn(3) * 0.1).astype(np.float32),
            "out/kernel": (rng.randn(24, 1) * 0.3).astype(np.float32),
            "out/bias": np.zeros(1, np.float32)}
