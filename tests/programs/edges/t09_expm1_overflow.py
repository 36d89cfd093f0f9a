"""A rate parameterised on a log scale: expm1 of an unbounded log-rate overflows float32.

expm1(x) overflows float32 for x above ≈88.7; one log-rate is 95.
"""
# EXPECT origin_op: Expm1
# EXPECT cause: overflow, 88.7
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


log_rate = np.array([0.5, 95.0, 3.0], np.float32)


@tf.function
def rate(lr):
    return tf.math.expm1(lr) * 0.1  # FIX


print(rate(log_rate).numpy())
tf.debugging.experimental.disable_dump_debug_info()
