"""Inverse-frequency class weights: a class that never occurs has count 0, 1/0 = +inf.
"""
# EXPECT origin_op: Reciprocal
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


labels = np.array([0, 1, 1, 3, 0, 1], np.int32)


@tf.function
def class_weights(y):
    counts = tf.reduce_sum(tf.one_hot(y, 4), axis=0)
    return tf.math.reciprocal(counts)  # FIX


print(class_weights(labels).numpy())
tf.debugging.experimental.disable_dump_debug_info()
