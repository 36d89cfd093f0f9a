"""Keras `fit` of a regression whose first layer standardizes each batch by hand, with the
unbiased (n − 1) variance, on arrays whose length is not a multiple of the batch size.

Usage: python fit_remainder_std.py

ROWS = 7·BATCH + 1: `fit` ends the epoch with a batch of one row (no drop_remainder for
arrays). That row's squared deviation from its own mean is 0 and its n − 1 is 0: the
variance is 0/0 = NaN in step BAD, the last of the first epoch, whatever the weights
(`proof` replays the layer in numpy on every batch). The line to change is the variance's
(divide by n, or give the layer running statistics as BatchNormalization does).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

BATCH, FEATURES, EPOCHS = 16, 4, 2
ROWS = 7 * BATCH + 1
BAD = ROWS // BATCH  # the one-row batch closing epoch 0 (step 7)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(401)
    x = (rng.normal(size=(ROWS, FEATURES)) * [1.0, 5.0, 0.2, 30.0] + 2.0).astype(np.float32)
    y = (x @ np.array([[0.5], [-0.1], [2.0], [0.01]]) + 0.3).astype(np.float32)
    return x, y


def proof() -> list[bool]:
    """For each step of epoch 0, whether the hand standardization's variance is finite
    (numpy, float32, the layer's formula)."""
    x, _ = make_data()
    finite = []
    with np.errstate(invalid="ignore", divide="ignore"):
        for s in range(BAD + 1):
            xb = x[s * BATCH:(s + 1) * BATCH]
            n = np.float32(len(xb))
            mean = xb.sum(axis=0) / n
            var = np.square(xb - mean).sum(axis=0) / (n - np.float32(1))
            finite.append(bool(np.isfinite(var).all()))
    return finite


def main() -> None:
    import tensorflow as tf

    class BatchStandardize(tf.keras.layers.Layer):
        """Each feature to mean 0, variance 1 over the batch."""

        def call(self, x: tf.Tensor) -> tf.Tensor:
            n = tf.cast(tf.shape(x)[0], x.dtype)
            mean = tf.reduce_sum(x, axis=0) / n
            var = tf.reduce_sum(tf.square(x - mean), axis=0) / (n - 1.0)  # FIX
            return (x - mean) / tf.sqrt(var + 1e-6)

    x, y = make_data()
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), BatchStandardize(),
                                 tf.keras.layers.Dense(8, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=EPOCHS, shuffle=False, verbose=2)


if __name__ == "__main__":
    main()
