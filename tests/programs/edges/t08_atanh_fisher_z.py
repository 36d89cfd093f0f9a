"""Fisher z of a predicted correlation: tanh saturates to exactly 1.0, and atanh(1) = +inf.

A model predicts a correlation as tanh(z) and the loss compares Fisher z-values, atanh(r).
For z above ≈9, tanh(z) rounds to 1.0 in float32 and atanh(1) = +∞. Use z directly (atanh
undoes tanh), or clip r into (−1, 1).
"""
# EXPECT origin_op: Atanh
# EXPECT cause: ±1|equal to 1|edge
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


z = np.array([0.5, 12.0, -3.0], np.float32)


@tf.function
def fisher_z(z):
    r = tf.tanh(z)
    return tf.math.atanh(r)  # FIX


print(fisher_z(z).numpy())
tf.debugging.experimental.disable_dump_debug_info()
