"""Keras `fit` with a `LearningRateScheduler` given a lambda, written in the call: meant to
cut the rate by a third each epoch after the first, written `lr * GROWTH` with GROWTH = 3
(the divisor) — the rate triples every epoch.

Usage: python fit_lambda_callback.py

Written after the tool's first contact with this corpus (unlike fit_lr_callback, whose
schedule is a named function): the schedule is a lambda inside the fit call, in the new
callback signature (epoch, lr). The rate the callback sets at each epoch's start grows
×3 an epoch; the regression's updates then overshoot more every step and the squared
error passes float32's range in step OVERFLOW (steps counted from 0 over all epochs,
BATCHES per epoch; `proof` replays the callback and SGD in float32). No op is wrong: the
line to change is the lambda's.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

EPOCHS, BATCHES, BATCH, FEATURES, LR0, GROWTH = 9, 4, 16, 3, 0.05, 3.0
OVERFLOW = 31  # the step whose squared error overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(109)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[0.5], [0.5], [1.5]]) + 0.25).astype(np.float32)
    return x, y


def proof() -> tuple[list[float], list[float]]:
    """Each step's largest |error| and its learning rate, until err² overflows float32
    (Dense(1) from zeros, mse, w ← w − g·lr; the rate: LR0, then ×GROWTH each epoch,
    stored in a float32 variable)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    errs: list[float] = []
    rates: list[float] = []
    lr = LR0
    for epoch in range(EPOCHS):
        lr = float(np.float32(lr * GROWTH if epoch else lr))
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
              callbacks=[tf.keras.callbacks.LearningRateScheduler(
                  lambda epoch, lr: lr * GROWTH if epoch else lr)])  # FIX


if __name__ == "__main__":
    main()
