"""An eager loop with an exponential learning-rate schedule meant to divide the rate by 10
every DECAY_STEPS steps — written with the factor, decay_rate=10, not its inverse 0.1.

Usage: python exp_decay_typo.py

ExponentialDecay gives lr₀·rate^(s / DECAY_STEPS): with rate 10 the learning rate grows
×√10 a step, the linear regression's updates overshoot more and more, and its squared error
passes float32's range in step OVERFLOW (`proof` replays the schedule and the training in
float32: the largest |error| is below 2e18 the step before, above 1e22 then, and the
error grows every step from step 3). No op is wrong: the line to fix is the schedule's.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR0, DECAY_STEPS, RATE = 14, 16, 3, 0.05, 2, 10.0
OVERFLOW = 12  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(59)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[2.0], [-1.0], [0.5]]) + 1.0).astype(np.float32)
    return x, y


def proof() -> tuple[list[float], list[float]]:
    """Each step's largest |error| and its learning rate, until err² overflows float32
    (Keras' SGD: w ← w − g·lr, lr = LR0·RATE^(s/DECAY_STEPS), all in float32)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs, rates = [], []
    for s in range(STEPS):
        lr = np.float32(LR0) * np.float32(RATE) ** (np.float32(s) / np.float32(DECAY_STEPS))
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
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(LR0, DECAY_STEPS, RATE)  # FIX
    opt = tf.keras.optimizers.SGD(learning_rate=schedule)
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
