"""A tf.function training step fed numpy slices of a table whose target column has a
missing value, read as NaN ("the loader fills blanks with NaN").

Usage: python fn_fed_nan_label.py

Row BAD·BATCH + 3 has no target: the slice fed in step BAD carries the NaN into the
function, the squared error of that row is NaN, and so is everything after it. Every other
value is finite (`proof`). The line to fix is where the batch is fed (drop or impute the
row).
"""
# EXPECT origin_op: Placeholder|Sub
# EXPECT cause: data|input|argument|fed
# EXPECT kind: data

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES = 6, 3, 8, 3


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(73)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [0.5], [-1.5]])).astype(np.float32)
    y[BAD * BATCH + 3, 0] = np.nan
    return x, y


def proof() -> list[int]:
    """The batches whose targets hold a value that is not finite (the features never do)."""
    x, y = make_data()
    assert np.isfinite(x).all()
    return [k for k in range(STEPS) if not np.isfinite(y[k * BATCH:(k + 1) * BATCH]).all()]


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    tf.keras.utils.set_random_seed(7)
    dense = tf.keras.layers.Dense(1)
    opt = tf.keras.optimizers.Adam(0.01)

    @tf.function
    def train_step(xb: tf.Tensor, yb: tf.Tensor) -> tf.Tensor:
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(dense(xb) - yb))
        grads = tape.gradient(loss, dense.trainable_variables)
        opt.apply_gradients(zip(grads, dense.trainable_variables, strict=True))
        return loss

    for step in range(STEPS):
        rows = slice(step * BATCH, (step + 1) * BATCH)
        loss = train_step(x[rows], y[rows])  # FIX
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
