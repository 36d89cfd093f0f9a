"""Keras `fit` of a model whose projection layer appends each row's length ‖x·W‖ as a
feature (no bias: "the length says how confident the projection is").

Usage: python fit_zero_row_norm.py

Batch BAD holds a padding row of zeros: its projection is exactly 0, its length √0 = 0 is
finite, and the forward pass is finite — but d√u/du = 1/(2√u) is +∞ at 0: the gradient of
the square root is ∞ in step BAD, and 0·∞ = NaN on the way to W. No other row's projection
is 0 in any batch (`proof`: the rows that are 0 are exactly 0 whatever W). The line to fix
is the length (√(u + ε), or skip the zero rows).
"""
# EXPECT origin_op: SqrtGrad
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

from __future__ import annotations

import numpy as np

BATCHES, BAD, BATCH, FEATURES, UNITS = 5, 2, 8, 4, 3


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(79)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = rng.normal(size=(BATCHES * BATCH, 1)).astype(np.float32)
    x[BAD * BATCH + 6] = 0.0  # padding
    y[BAD * BATCH + 6] = 0.0
    return x, y


def proof() -> list[int]:
    """The batches holding a row of zeros (its projection x·W is 0 for every W)."""
    x, _ = make_data()
    return [k for k in range(BATCHES) if (x[k * BATCH:(k + 1) * BATCH] == 0).all(1).any()]


def main() -> None:
    import tensorflow as tf

    class ProjectWithLength(tf.keras.layers.Layer):
        def build(self, shape: tuple[int, ...]) -> None:
            self.w = self.add_weight(shape=(shape[-1], UNITS), initializer="glorot_uniform")

        def call(self, x: tf.Tensor) -> tf.Tensor:
            h = tf.matmul(x, self.w)
            length = tf.norm(h, axis=1, keepdims=True)  # FIX
            return tf.concat([h, length], axis=1)

    x, y = make_data()
    tf.keras.utils.set_random_seed(3)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)), ProjectWithLength(),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.SGD(0.01), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=0)


if __name__ == "__main__":
    main()
