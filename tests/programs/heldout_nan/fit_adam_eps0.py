"""Keras `fit` of a linear model with Adam(epsilon=0): "the epsilon only blurs the step".

Usage: python fit_adam_eps0.py

Feature 2 is 0 in every row of the first batch (a sensor switched on later): its weight's
gradient in step 0 is exactly 0, so are Adam's first and second moments, and the update
m̂ / (√v̂ + ε) is 0 / (0 + 0) = NaN — step 0, in the optimizer, though no value in the
data or the model is bad. `proof` shows the gradient row is exactly 0 and no other is.
The line to fix is the optimizer's epsilon.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0, epsilon
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

BATCHES, BATCH, FEATURES = 4, 8, 3


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]]) + 0.5).astype(np.float32)
    x[:BATCH, 2] = 0.0
    return x, y


def proof() -> list[int]:
    """The kernel rows whose step-0 gradient xᵀ·δ is exactly 0 whatever δ: the features
    that are 0 in every row of batch 0."""
    x, _ = make_data()
    return [f for f in range(FEATURES) if (x[:BATCH, f] == 0).all()]


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    tf.keras.utils.set_random_seed(4)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01, epsilon=0.0), loss="mse")  # FIX
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)


if __name__ == "__main__":
    main()
