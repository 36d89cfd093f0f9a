"""What tests/programs/mixed_program.py's mixed-precision training computes, in numpy alone.

Keras under the `mixed_float16` policy: a 3→1 Dense layer (kernel 0.5, bias 0) computes in
float16 (inputs and kernel cast to float16), its variables stay float32; the mean squared
error is computed in float32; the optimizer (SGD, rate 0.01) is wrapped in a dynamic
`LossScaleOptimizer` (scale 2**15): the loss is multiplied by the scale, the gradients
divided by it, and a step whose gradients are not finite is skipped (no update; the scale
halved). Every batch is small and finite except batch BAD, whose inputs are 1e5: finite in
float32, +∞ once cast to float16 (max 65504). Written before looking at what tfdbg-tui
says, so that its per-step losses are checked against arithmetic:

- steps before BAD: finite losses (targets near the initial model's: the scaled gradients
  stay far below float16's max, so no step is skipped for an overflow);
- step BAD: the prediction is +∞ in float16, so its loss is +∞ (float32);
  its gradients are not finite (∞·0 and ∞−∞ in the backward pass): the step is skipped;
- steps after BAD: finite again — the weights were never touched by the bad batch.

So the first NaN/∞ of the run is in step BAD by construction, and the loss after it is
finite: a mixed-precision run recovers, which the per-step loss must show as it is.
Nothing here imports TensorFlow.
"""

from __future__ import annotations

import numpy as np

BATCH = 4
FEATURES = 3
LR = np.float32(0.01)
SCALE = np.float32(2.0**15)  # Keras' LossScaleOptimizer's initial scale
BAD_INPUT = 1e5  # finite in float32, +∞ in float16
F16_MAX = float(np.finfo(np.float16).max)


def batches(n: int, bad: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The n batches (x, y) of the run; batch `bad`'s inputs are 1e5."""
    rng = np.random.default_rng(11)
    out = []
    for k in range(n):
        x = rng.uniform(0.1, 1.0, size=(BATCH, FEATURES)).astype(np.float32)
        if k == bad:
            x = np.full_like(x, BAD_INPUT)
        y = (x @ np.array([[0.6], [0.4], [0.5]], np.float32)).astype(np.float32)
        out.append((x, y))
    return out


def expected_losses(n: int, bad: int) -> tuple[list[float], list[bool]]:
    """The loss of each of the n steps (float32, as the program's loss is), and whether
    each step's update was skipped (its scaled gradients not finite in float16)."""
    w = np.full((FEATURES, 1), 0.5, np.float32)
    b = np.zeros((1,), np.float32)
    scale = SCALE
    losses, skipped = [], []
    with np.errstate(over="ignore", invalid="ignore"):
        for x, y in batches(n, bad):
            x16 = x.astype(np.float16)
            pred = (x16.astype(np.float32) @ w.astype(np.float16).astype(np.float32)
                    ).astype(np.float16) + b.astype(np.float16)
            err = pred.astype(np.float32) - y
            losses.append(float(np.mean(np.square(err), dtype=np.float32)))
            g = (scale * np.float32(2.0 / BATCH) * err).astype(np.float16)  # d(scaled)/d pred
            gw = (x16.T.astype(np.float32) @ g.astype(np.float32)).astype(np.float16)
            gb = g.astype(np.float32).sum(axis=0).astype(np.float16)
            if not (np.isfinite(gw).all() and np.isfinite(gb).all()):
                skipped.append(True)
                scale = scale / np.float32(2)
                continue
            skipped.append(False)
            w = (w - LR * (gw.astype(np.float32) / scale)).astype(np.float32)
            b = (b - LR * (gb.astype(np.float32) / scale)).astype(np.float32)
    return losses, skipped


def first_bad_step(losses: list[float]) -> int:
    """The first step whose loss is not finite."""
    return next(k for k, v in enumerate(losses) if not np.isfinite(v))
