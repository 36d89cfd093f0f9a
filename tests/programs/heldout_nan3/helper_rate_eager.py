"""An eager training loop that sets the optimizer's learning rate at the top of every step
from a helper the user wrote: an exponential decay BASE·e^(−DECAY·s) — written without the
minus sign, so the rate grows e^DECAY-fold every step.

Usage: python helper_rate_eager.py

The helper is plain Python (no TensorFlow op runs in it); the loop assigns its float to
`opt.learning_rate`. Once the rate passes what the data's scale allows, the regression's
updates overshoot more every step, and its squared error passes float32's range in step
OVERFLOW (`proof` replays the rates and SGD in float32: the largest |error| squares to a
finite float32 the step before, not then). No op is wrong, nor the assignment: the line to
change is the helper's `return`.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import math

import numpy as np

STEPS, BATCH, FEATURES, BASE, DECAY = 30, 16, 3, 0.1, 0.3
OVERFLOW = 24  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(103)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[-2.0], [1.0], [0.5]]) + 1.0).astype(np.float32)
    return x, y


def decayed_rate(step: int) -> float:
    """The learning rate for `step`: BASE, decaying by e^-DECAY a step."""
    return BASE * math.exp(DECAY * step)  # FIX


def proof() -> tuple[list[float], list[float]]:
    """Each step's largest |error| and its learning rate, until err² overflows float32
    (w, b from zeros, mean squared error, w ← w − g·lr, lr stored as float32)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs: list[float] = []
    rates: list[float] = []
    for s in range(STEPS):
        lr = np.float32(decayed_rate(s))
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = (xb @ w + b - yb).astype(np.float32)
        errs.append(float(np.abs(err).max()))
        rates.append(float(lr))
        with np.errstate(over="ignore"):
            if not np.isfinite(err * err).all():
                break
        d = np.float32(2) * err / np.float32(BATCH)
        w = (w - (xb.T @ d) * lr).astype(np.float32)
        b = np.float32(b - d.sum() * lr)
    return errs, rates


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(BASE)
    for step in range(STEPS):
        opt.learning_rate = decayed_rate(step)
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
