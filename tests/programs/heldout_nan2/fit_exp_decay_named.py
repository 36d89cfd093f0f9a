"""Keras `fit` of a linear regression with SGD on an ExponentialDecay schedule whose
decay_rate is the factor the rate should be divided by (10), not the one it is multiplied
by (0.1) — the schedule made on a line of its own and passed to the optimizer by name.

Usage: python fit_exp_decay_named.py

Written after the tool's first contact with the corpus, unlike exp_decay_typo (eager, the
rate computed eagerly): here the schedule runs inside fit's tf.function. The rate grows ×√10
a step, the updates overshoot more and more, and the squared error passes float32's range in
step OVERFLOW (`proof` replays the schedule and Keras' SGD in float32). No op is wrong: the
line to fix is the schedule's.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

BATCHES, BATCH, FEATURES, LR0, DECAY_STEPS, RATE = 16, 16, 3, 0.05, 2, 10.0
OVERFLOW = 12  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(89)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[-1.0], [0.5], [2.0]]) + 0.5).astype(np.float32)
    return x, y


def proof() -> list[float]:
    """Each step's largest |error| until err² overflows float32 (Dense(1) from zeros, mse,
    w ← w − g·lr, lr = LR0·RATE^(s/DECAY_STEPS), all in float32)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs = []
    for s in range(BATCHES):
        lr = np.float32(LR0) * np.float32(RATE) ** (np.float32(s) / np.float32(DECAY_STEPS))
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = (xb @ w + b - yb).astype(np.float32)
        errs.append(float(np.abs(err).max()))
        with np.errstate(over="ignore"):
            if not np.isfinite(err * err).all():
                break
        d = np.float32(2) * err / np.float32(BATCH)
        w = (w - (xb.T @ d) * lr).astype(np.float32)
        b = np.float32(b - d.sum() * lr)
    return errs


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                 tf.keras.layers.Dense(1, kernel_initializer="zeros")])
    schedule = tf.keras.optimizers.schedules.ExponentialDecay(  # FIX
        LR0, decay_steps=DECAY_STEPS, decay_rate=RATE)
    model.compile(optimizer=tf.keras.optimizers.SGD(schedule), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)


if __name__ == "__main__":
    main()
