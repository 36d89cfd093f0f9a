"""Keras `fit` with a `LearningRateScheduler` callback meant to divide the learning rate by
10 every EVERY epochs — written `lr / DROP` with DROP = 0.1, the factor, so it multiplies.

Usage: python fit_lr_callback.py

The callback sets the optimizer's rate at the start of each epoch (an eager assignment from
Keras' own code): LR0 for the first EVERY epochs, ×10 for the next, ×100 after. The
regression's updates then overshoot more and more, and its squared error passes float32's
range in step OVERFLOW (steps counted from 0 over all epochs: BATCHES per epoch). `proof`
replays the callback and Keras' SGD in float32: the largest |error| is below 2e18 the step
before, above 1e22 then. No op is wrong: the line to change is the schedule function's.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

EPOCHS, BATCHES, BATCH, FEATURES, LR0, EVERY, DROP = 9, 4, 16, 3, 0.05, 2, 0.1
OVERFLOW = 31  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(97)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.5], [-0.5], [1.0]]) - 0.5).astype(np.float32)
    return x, y


def step_decay(epoch: int, lr: float) -> float:
    """The learning rate for `epoch`, from the current one (the callback's signature)."""
    if epoch == 0 or epoch % EVERY:
        return lr
    return lr / DROP  # FIX


def proof() -> tuple[list[float], list[float]]:
    """Each step's largest |error| and its learning rate, until err² overflows float32
    (Dense(1) from zeros, mse, w ← w − g·lr, the rate the callback sets each epoch)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs: list[float] = []
    rates: list[float] = []
    lr = LR0
    for epoch in range(EPOCHS):
        lr = float(np.float32(step_decay(epoch, lr)))  # Keras stores it in a float32 variable
        for i in range(BATCHES):
            xb, yb = x[i * BATCH:(i + 1) * BATCH], y[i * BATCH:(i + 1) * BATCH]
            err = (xb @ w + b - yb).astype(np.float32)
            errs.append(float(np.abs(err).max()))
            rates.append(lr)
            with np.errstate(over="ignore"):
                if not np.isfinite(err * err).all():
                    return errs, rates
            d = np.float32(2) * err / np.float32(BATCH)
            w = (w - (xb.T @ d) * np.float32(lr)).astype(np.float32)
            b = np.float32(b - d.sum() * np.float32(lr))
    return errs, rates


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                 tf.keras.layers.Dense(1, kernel_initializer="zeros")])
    model.compile(optimizer=tf.keras.optimizers.SGD(LR0), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=0,
              callbacks=[tf.keras.callbacks.LearningRateScheduler(step_decay)])


if __name__ == "__main__":
    main()
