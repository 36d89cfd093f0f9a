"""Keras `fit` over a repeating tf.data stream, STEPS_PER_EPOCH batches an epoch for two
epochs: the iterator goes on where the last epoch stopped, so epoch 1 trains on batches
STEPS_PER_EPOCH… of the stream.

Usage: python fit_stream_bad_batch.py

The stream's batch BAD (epoch 1, its batch BAD − STEPS_PER_EPOCH) holds a reading that was
lost and written as NaN: that step's input carries it, and everything it touches is NaN
from then on. Every other value is finite (`proof`). The line to fix is where the data
enters the training: the dataset made from the arrays (filter or repair), as in the zoo's
fit over a dataset (c5_data_keras_fit) — first marked on the fit call, a mistake of ours.
"""
# EXPECT origin_op: IteratorGetNext
# EXPECT cause: data|dataset|input pipeline
# EXPECT kind: data

from __future__ import annotations

import numpy as np

STEPS_PER_EPOCH, EPOCHS, BATCH, FEATURES = 3, 2, 8, 4
BATCHES = STEPS_PER_EPOCH * EPOCHS
BAD = 4


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(71)
    x = rng.normal(size=(BATCHES * BATCH, FEATURES)).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    x[BAD * BATCH + 5, 1] = np.nan
    return x, y


def proof() -> list[int]:
    """The stream's batches (no shuffle) holding a value that is not finite."""
    x, _ = make_data()
    return [k for k in range(BATCHES) if not np.isfinite(x[k * BATCH:(k + 1) * BATCH]).all()]


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    tf.keras.utils.set_random_seed(5)
    model = tf.keras.Sequential([tf.keras.Input((FEATURES,)),
                                 tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(optimizer="adam", loss="binary_crossentropy")
    stream = tf.data.Dataset.from_tensor_slices((x, y)).batch(BATCH).repeat()  # FIX
    model.fit(stream, steps_per_epoch=STEPS_PER_EPOCH, epochs=EPOCHS, verbose=0)


if __name__ == "__main__":
    main()
