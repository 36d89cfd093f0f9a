"""An eager call of a tf.function that returns NaN: the NaN is born inside the function.

A feature-engineering helper computes the geometric mean of each row as exp(mean(log(x))),
decorated with @tf.function and called eagerly on a batch. One column holds log-returns,
which can be negative, and log of a negative number is NaN.
"""
# EXPECT origin_op: Log
# EXPECT cause: negative
# EXPECT kind: forward
# EXPECT eager_alert_origin: Log

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


@tf.function
def geometric_mean(x):
    return tf.exp(tf.reduce_mean(tf.math.log(x), axis=1))  # FIX


rng = np.random.RandomState(2)
prices = rng.uniform(10.0, 20.0, size=(16, 3)).astype("float32")
returns = rng.normal(0.0, 0.05, size=(16, 1)).astype("float32")
features = np.concatenate([prices, returns], axis=1)

for start in range(0, 16, 8):
    batch = tf.constant(features[start:start + 8])
    gm = geometric_mean(batch)
    print("batch", start, "geometric mean", gm.numpy()[:3])

tf.debugging.experimental.disable_dump_debug_info()
