"""Poincaré-ball distance for a point that left the unit ball: acosh of a value below 1.

d(u, v) = acosh(1 + 2|u−v|² / ((1−|u|²)(1−|v|²))); a point with norm above 1 makes the
denominator negative, the argument drops below 1 and acosh is NaN there.
"""
# EXPECT origin_op: Acosh
# EXPECT cause: below 1|< 1|domain
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


u = np.array([[0.1, 0.2], [0.9, 0.6]], np.float32)  # the second point has norm 1.08
v = np.array([[0.3, -0.1], [0.0, 0.1]], np.float32)


@tf.function
def poincare_distance(u, v):
    sq = tf.reduce_sum(tf.square(u - v), axis=-1)
    nu = 1.0 - tf.reduce_sum(tf.square(u), axis=-1)
    nv = 1.0 - tf.reduce_sum(tf.square(v), axis=-1)
    return tf.math.acosh(1.0 + 2.0 * sq / (nu * nv))  # FIX


print(poincare_distance(u, v).numpy())
tf.debugging.experimental.disable_dump_debug_info()
