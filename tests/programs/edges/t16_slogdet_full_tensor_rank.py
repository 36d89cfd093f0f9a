"""Gaussian log-likelihood with the sample covariance of a batch where one feature is
constant — recorded in FULL_TENSOR, so the covariance's values show its rank (4 of 5).

A one-hot column that is never set in this batch has zero variance: the covariance has a
zero row and column, it is singular and its log-determinant is −inf. The standard fix is
jitter on the diagonal (cov + 1e-6·I).
"""
# EXPECT origin_op: LogMatrixDeterminant
# EXPECT cause: singular, rank 4 of 5, diagonal|jitter
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)


rng = np.random.RandomState(11)
samples = rng.randn(8, 5).astype(np.float32)
samples[:, 3] = 0.0  # a one-hot column never set in this batch


@tf.function
def log_det_covariance(x):
    n = tf.cast(tf.shape(x)[0], tf.float32)
    centered = x - tf.reduce_mean(x, axis=0)
    cov = tf.matmul(centered, centered, transpose_a=True) / (n - 1.0)
    _, logdet = tf.linalg.slogdet(cov)  # FIX
    return logdet


print("logdet", float(log_det_covariance(samples)))
tf.debugging.experimental.disable_dump_debug_info()
