"""The determinant of a 40×40 covariance of large-variance features overflows float32.

det(20·I) = 20^40 ≈ 1e52; tf.linalg.det overflows to +inf. Use slogdet.
"""
# EXPECT origin_op: MatrixDeterminant
# EXPECT cause: overflow, slogdet
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


cov = (np.eye(40) * 20.0).astype(np.float32)


@tf.function
def volume(c):
    return tf.linalg.det(c)  # FIX


print(float(volume(cov)))
tf.debugging.experimental.disable_dump_debug_info()
