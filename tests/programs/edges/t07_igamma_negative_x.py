"""A Gamma CDF evaluated at negative durations: igamma(k, x) needs x >= 0.

Waiting times are computed as differences of timestamps; one pair is out of order, the
difference is negative, and the lower regularised incomplete gamma is NaN there.
"""
# EXPECT origin_op: Igamma
# EXPECT cause: negative, domain|x >= 0|x ≥ 0
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


start = np.array([0.0, 5.0, 2.0], np.float32)
end = np.array([3.0, 4.0, 6.0], np.float32)


@tf.function
def gamma_cdf(start, end):
    waits = end - start
    return tf.math.igamma(2.0, waits / 1.5)  # FIX


print(gamma_cdf(start, end).numpy())
tf.debugging.experimental.disable_dump_debug_info()
