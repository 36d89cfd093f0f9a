"""A Beta CDF with a shape parameter of 0: the regularised incomplete beta is undefined.

betainc(a, b, x) needs a > 0 and b > 0; a shape built with relu is 0 for one entry and
betainc returns NaN there.
"""
# EXPECT origin_op: Betainc
# EXPECT cause: positive|domain
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


a_raw = np.array([2.0, -0.5, 1.0], np.float32)
b = np.array([3.0, 2.0, 1.0], np.float32)
x = np.array([0.2, 0.5, 0.9], np.float32)


@tf.function
def beta_cdf(a_raw, b, x):
    a = tf.nn.relu(a_raw)
    return tf.math.betainc(a, b, x)  # FIX


print(beta_cdf(a_raw, b, x).numpy())
tf.debugging.experimental.disable_dump_debug_info()
