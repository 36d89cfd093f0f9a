"""Keras `fit` with a hand-written learning-rate schedule: linear warm-up for WARMUP steps,
then 1/t decay — the decay written with the steps since the warm-up as the divisor.

Usage: python fit_inverse_lr_schedule.py

The decay term BASE / (DECAY·(s − WARMUP)) is computed every step (tf.where takes both
branches) but chosen only from s = WARMUP on, where its divisor is exactly 0: the learning
rate is +∞ in step WARMUP, inside the optimizer, and the weights it updates become ±∞ or NaN.
Before it the learning rate is at most BASE and the training is finite (`proof` replays the
schedule and the training in float32). The line to fix is the decay (1 + DECAY·(s − WARMUP)).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|divid
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

BATCHES, BATCH, FEATURES, WARMUP, BASE, DECAY = 6, 8, 3, 3, 0.05, 0.5


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(53)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]]) + 0.3).astype(np.float32)
    return x, y


def rates() -> list[float]:
    """The learning rate the schedule gives at each step, in float32."""
    out = []
    for s in map(np.float32, range(BATCHES)):
        warm = np.float32(BASE) * (s + 1) / np.float32(WARMUP)
        with np.errstate(divide="ignore"):
            decay = np.float32(BASE) / (np.float32(DECAY) * (s - np.float32(WARMUP)))
        out.append(float(warm if s < WARMUP else decay))
    return out


def proof() -> tuple[int, list[float]]:
    """The first step whose learning rate is not finite, and the loss of every step before
    it and of it (the forward pass runs before the update): Dense(1) from zeros, plain SGD."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    losses = []
    for s, lr in enumerate(rates()):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w + b - yb
        losses.append(float(np.mean(err * err)))
        if not np.isfinite(lr):
            return s, losses
        w, b = w - np.float32(lr) * (2 * xb.T @ err / BATCH), b - np.float32(lr) * 2 * err.mean()
    return -1, losses


def main() -> None:
    import tensorflow as tf

    class WarmupThenInverse(tf.keras.optimizers.schedules.LearningRateSchedule):
        def __call__(self, step: tf.Tensor) -> tf.Tensor:
            s = tf.cast(step, tf.float32)
            warm = BASE * (s + 1.0) / WARMUP
            decay = BASE / (DECAY * (s - WARMUP))  # FIX
            return tf.where(s < WARMUP, warm, decay)

    x, y = make_data()
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                 tf.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=tf.keras.optimizers.SGD(WarmupThenInverse()), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)


if __name__ == "__main__":
    main()
