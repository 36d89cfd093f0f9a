"""Compound growth over 400 periods: the cumulative product of growth factors overflows.

1.3^400 ≈ 1e45 is beyond float32's largest value ≈3.4e38; cumprod overflows to +inf.
Work in log space (cumsum of logs).
"""
# EXPECT origin_op: Cumprod
# EXPECT cause: overflow, float32
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


growth = np.full(400, 1.3, np.float32)


@tf.function
def wealth(g):
    return tf.math.cumprod(g)  # FIX


print(wealth(growth).numpy()[-1])
tf.debugging.experimental.disable_dump_debug_info()
