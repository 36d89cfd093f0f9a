"""What tests/programs/loss_program.py's training computes, step by step, in numpy alone.

The program trains a 3→1 linear model (weights 0.5, bias 0) with SGD (rate 0.01) on the mean
squared error, one batch a step; every batch is small and finite except batch BAD, whose
inputs are 1e20. Written before looking at what tfdbg-tui says, so that its per-step losses
are checked against arithmetic, not against itself: in float32, as TensorFlow computes,

- steps before BAD: finite losses (0.53, 0.88, 0.26, 2.2, 1.3 for the first five);
- step BAD: the prediction is ~1.5e20, its squared error ~2e40 overflows float32: loss +∞.
  The weights' gradient (x·err ~ 1e40) overflows too, so the weights become +∞;
- step BAD+1: an infinite prediction: loss +∞ again, and ∞ − ∞ in the update makes NaN;
- from step BAD+2 on: NaN.

So the first NaN/∞ of the run is in step BAD by construction, whatever form the training
takes (eager, tf.function, Keras fit, TF1 Session.run), and so is the loss of every step.
Nothing here imports TensorFlow.
"""

from __future__ import annotations

import numpy as np

BATCH = 4
LR = np.float32(0.01)
FEATURES = 3


def batches(n: int, bad: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The n batches (x, y) of the run; batch `bad`'s inputs are 1e20."""
    rng = np.random.default_rng(7)
    out = []
    for k in range(n):
        x = rng.uniform(0.1, 1.0, size=(BATCH, FEATURES)).astype(np.float32)
        if k == bad:
            x = np.full_like(x, 1e20)
        y = (x @ np.array([[1.0], [-2.0], [3.0]], np.float32)).astype(np.float32)
        out.append((x, y))
    return out


def expected_losses(n: int, bad: int) -> list[float]:
    """The loss of each of the n steps, in float32 as the program computes it."""
    w = np.full((FEATURES, 1), 0.5, np.float32)
    b = np.zeros((1,), np.float32)
    losses = []
    with np.errstate(over="ignore", invalid="ignore"):
        for x, y in batches(n, bad):
            err = (x @ w + b - y).astype(np.float32)
            losses.append(float(np.mean(np.square(err), dtype=np.float32)))
            g = (np.float32(2.0 / BATCH) * err).astype(np.float32)  # d loss / d pred
            w = (w - LR * (x.T @ g)).astype(np.float32)
            b = (b - LR * g.sum(axis=0)).astype(np.float32)
    return losses


def first_bad_step(losses: list[float]) -> int:
    """The first step whose loss is not finite."""
    return next(k for k, v in enumerate(losses) if not np.isfinite(v))
