"""Standardisation run eagerly: a constant column has std 0, and 0 / 0 is NaN.

Plain eager TensorFlow, no tf.function: the user standardises the feature columns with
(x - mean) / std before training. One column is constant (a sensor stuck at one value):
its std is 0 and every entry becomes 0 / 0 = NaN.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(35)
raw = rng.rand(20, 4).astype("float32") * 50.0
raw[:, 2] = 7.0  # a stuck sensor
x = tf.constant(raw)
mean = tf.reduce_mean(x, axis=0)
std = tf.math.reduce_std(x, axis=0)
x_norm = (x - mean) / std  # FIX
w = tf.Variable(tf.random.normal([4, 1], seed=35))
pred = tf.matmul(x_norm, w)
print("prediction finite:", bool(tf.reduce_all(tf.math.is_finite(pred))))

tf.debugging.experimental.disable_dump_debug_info()
