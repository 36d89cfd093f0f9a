"""Keras `fit` on a model whose first layer standardizes each batch by its own statistics.

Usage: python fit_stuck_sensor.py

In batch BAD one sensor is stuck at 3.0 for every row: that feature's batch mean is exactly
3.0, its deviations exactly 0, its standard deviation exactly 0, and (x − mean) / std is
0/0 = NaN (`proof`: 16 × 3.0 = 48 and 48 / 16 are exact in float32). Every other batch's
standard deviations are well above 0. The line to fix is the division (add an epsilon).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

BATCHES, BAD, BATCH, FEATURES = 6, 3, 16, 4


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(21)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    x[BAD * BATCH:(BAD + 1) * BATCH, 2] = 3.0  # the sensor stuck for one batch
    return x, y


def proof() -> tuple[list[int], float]:
    """The batches with a feature of standard deviation 0, and the smallest other one."""
    x, _ = make_data()
    std = np.array([x[k * BATCH:(k + 1) * BATCH].std(0) for k in range(BATCHES)])
    zero = [k for k in range(BATCHES) if (std[k] == 0).any()]
    return zero, float(std[std > 0].min())


def main() -> None:
    import tensorflow as tf

    class Standardize(tf.keras.layers.Layer):
        def call(self, x: tf.Tensor) -> tf.Tensor:
            mean = tf.reduce_mean(x, axis=0)
            std = tf.math.reduce_std(x, axis=0)
            return (x - mean) / std  # FIX

    x, y = make_data()
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), Standardize(),
                                 tf.keras.layers.Dense(8, activation="tanh"),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="sgd", loss="binary_crossentropy")
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)


if __name__ == "__main__":
    main()
