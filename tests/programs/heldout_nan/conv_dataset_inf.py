"""An eager loop over a tf.data pipeline training a small 1-D convolutional model (Adam).

Usage: python conv_dataset_inf.py

One reading of one series in batch BAD overflowed to +∞ when the data was written (a
float16 CSV column, say): the batch the iterator hands the loop in step BAD carries it, and
everything it touches from then on is ∞ or NaN. Every other value is small (`proof`). The
line to fix is where the data enters: the dataset made from the arrays (filter or repair).
"""
# EXPECT origin_op: IteratorGetNext
# EXPECT cause: data|dataset|input pipeline
# EXPECT kind: data

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, LENGTH = 5, 2, 4, 12


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(29)
    x = rng.normal(size=(STEPS * BATCH, LENGTH, 1)).astype(np.float32)
    y = x.mean(axis=(1, 2))[:, None].astype(np.float32)
    x[BAD * BATCH + 2, 7, 0] = np.inf
    return x, y


def proof() -> list[int]:
    """The batches (in the loop's order: no shuffle) holding a value that is not finite."""
    x, _ = make_data()
    return [k for k in range(STEPS) if not np.isfinite(x[k * BATCH:(k + 1) * BATCH]).all()]


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    tf.keras.utils.set_random_seed(2)
    model = tf.keras.Sequential([tf.keras.Input((LENGTH, 1)),
                                 tf.keras.layers.Conv1D(4, 3, activation="relu"),
                                 tf.keras.layers.GlobalAveragePooling1D(),
                                 tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(1e-3)
    ds = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH)  # FIX
    for step, (xb, yb) in enumerate(ds):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(xb, training=True) - yb))
        grads = tape.gradient(loss, model.trainable_variables)
        opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
