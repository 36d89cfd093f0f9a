"""Keras fit with a custom loss: a relative error divides by targets that are zero.

The user compiles a Keras model with their own loss function, a mean relative squared
error ((y - ŷ) / y)². Some targets are exactly 0 (no sales that day): 1/0 and 0/0 in the
loss, NaN in the first training step.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(30)


def relative_squared_error(y_true, y_pred):
    rel = (y_true - y_pred) / y_true  # FIX
    return tf.reduce_mean(tf.square(rel), axis=-1)


rng = np.random.RandomState(30)
x = rng.rand(40, 3).astype("float32")
sales = rng.poisson(2.0, (40, 1)).astype("float32")  # includes days with 0 sales
model = tf.keras.Sequential([tf.keras.layers.Input((3,)), tf.keras.layers.Dense(4, "relu"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss=relative_squared_error)
model.fit(x, sales, epochs=1, batch_size=20, verbose=0)

tf.debugging.experimental.disable_dump_debug_info()
