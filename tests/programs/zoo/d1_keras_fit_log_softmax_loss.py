"""Keras fit with a hand-written cross-entropy: log of a softmax output that underflowed.

The user writes their own categorical cross-entropy, -sum(y * log(p)), for a classifier
whose last layer is a softmax, and trains it with model.fit on raw pixel values (0..255,
not scaled). The logits are in the hundreds, the softmax of the losing classes underflows
to exactly 0, and log(0) = -inf (then 0 * -inf = NaN for the classes that are not the label).
"""
# EXPECT origin_op: Log
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(41)


def categorical_nll(y_true, y_pred):
    return -tf.reduce_sum(y_true * tf.math.log(y_pred), axis=-1)  # FIX


rng = np.random.RandomState(41)
images = rng.randint(0, 256, (64, 8, 8)).astype("float32")  # raw pixels
labels = tf.keras.utils.to_categorical(rng.randint(0, 10, 64), 10)

model = tf.keras.Sequential([
    tf.keras.layers.Input((8, 8)),
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(10, activation="softmax"),
])
model.compile(optimizer="adam", loss=categorical_nll)
history = model.fit(images, labels, batch_size=32, epochs=1, verbose=0)
print("loss", history.history["loss"])

tf.debugging.experimental.disable_dump_debug_info()
