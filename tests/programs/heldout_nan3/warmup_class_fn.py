"""A `tf.function` training step whose optimizer takes a hand-written `LearningRateSchedule`:
a linear warm-up to PEAK over WARMUP steps, then PEAK — written with `tf.maximum` where
`tf.minimum` caps the warm-up, so the rate never stops growing after it.

Usage: python warmup_class_fn.py

The schedule's `__call__` runs inside the optimizer's update, in the step function's graph:
lr = PEAK·max(1, (s + 1)/WARMUP) is PEAK·(s + 1)/WARMUP from step WARMUP on. Once the rate
passes what the data's scale allows, the regression's updates overshoot more every step and
its squared error passes float32's range in step OVERFLOW (`proof` replays the schedule and
SGD in float32: the largest |error| squares to a finite float32 the step before, not then).
No op is wrong: the line to change is the schedule's `return`.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, PEAK, WARMUP = 30, 16, 3, 0.5, 2
OVERFLOW = 27  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(101)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[0.5], [2.0], [-1.0]]) + 0.2).astype(np.float32)
    return x, y


def rate(s: int) -> float:
    """The schedule's rate at step `s` (as its `__call__` computes it, in float32)."""
    ratio = np.float32(s + 1) / np.float32(WARMUP)
    return float(np.float32(PEAK) * np.maximum(np.float32(1), ratio))


def proof() -> tuple[list[float], list[float]]:
    """Each step's largest |error| and its learning rate, until err² overflows float32
    (w, b from zeros, mean squared error, w ← w − g·lr)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs: list[float] = []
    rates: list[float] = []
    for s in range(STEPS):
        lr = np.float32(rate(s))
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

    class WarmUp(tf.keras.optimizers.schedules.LearningRateSchedule):
        """Linear warm-up to PEAK over WARMUP steps, then PEAK."""

        def __call__(self, step: tf.Tensor) -> tf.Tensor:
            ratio = tf.cast(step + 1, tf.float32) / WARMUP
            return PEAK * tf.maximum(1.0, ratio)  # FIX

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(learning_rate=WarmUp())

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        return loss

    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        loss = train_step(x[rows], y[rows])
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
