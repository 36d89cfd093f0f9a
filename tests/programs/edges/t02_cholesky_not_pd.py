"""Cholesky of a kernel matrix that is not positive definite.

A hand-built "similarity" matrix (1 on the diagonal, 0.9 between some pairs, −0.9 between
others) is symmetric but not positive definite; TensorFlow's Cholesky returns NaN for it
on CPU. The usual fixes: jitter on the diagonal, or a valid kernel.
"""
# EXPECT origin_op: Cholesky
# EXPECT cause: positive definite|positive-definite
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


sim = np.array([[1.0, 0.9, 0.9], [0.9, 1.0, -0.9], [0.9, -0.9, 1.0]], np.float32)


@tf.function
def whiten(k):
    chol = tf.linalg.cholesky(k)  # FIX
    return tf.linalg.triangular_solve(chol, tf.eye(3))


print(whiten(sim).numpy())
tf.debugging.experimental.disable_dump_debug_info()
