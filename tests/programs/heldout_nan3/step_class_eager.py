"""An eager training loop whose optimizer takes a hand-written `LearningRateSchedule`: a
step decay meant to halve the rate every EVERY steps — written with GAMMA = 2.0, the factor
it divides by, so the rate doubles every EVERY steps.

Usage: python step_class_eager.py

Written after the tool's first contact with this corpus (unlike warmup_class_fn, whose
schedule runs inside a tf.function): here the schedule's `__call__` runs eagerly, inside
`opt.apply_gradients`, every step. Once the rate passes what the data's scale allows, the
regression's updates overshoot more every step and its squared error passes float32's
range in step OVERFLOW (`proof` replays the schedule and SGD in float32). No op is wrong:
the line to change is the schedule's `return`.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR0, EVERY, GAMMA = 30, 16, 3, 0.1, 2, 2.0
OVERFLOW = 23  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(107)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [1.0], [-2.0]]) - 0.7).astype(np.float32)
    return x, y


def rate(s: int) -> float:
    """The schedule's rate at step `s`, in float32 (LR0·GAMMA^⌊s/EVERY⌋)."""
    return float(np.float32(LR0) * np.float32(GAMMA) ** np.float32(s // EVERY))


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

    class StepDecay(tf.keras.optimizers.schedules.LearningRateSchedule):
        """initial, divided by gamma every `every` steps."""

        def __init__(self, initial: float, every: int, gamma: float) -> None:
            self.initial, self.every, self.gamma = initial, every, gamma

        def __call__(self, step: tf.Tensor) -> tf.Tensor:
            k = tf.cast(step // self.every, tf.float32)
            return self.initial * tf.pow(self.gamma, k)  # FIX

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(StepDecay(LR0, EVERY, GAMMA))
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
