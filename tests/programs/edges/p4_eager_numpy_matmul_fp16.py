"""A Gram matrix of float16 features computed eagerly from numpy arrays: the dot products
overflow.

Features (values up to 60) are kept as float16 numpy arrays to save memory; X^T X sums 64
products of up to 3600, beyond float16's 65504. The inputs were made outside any recorded op
(numpy), but they are finite: the MatMul overflowed, it did not receive ∞ from outside.
"""
# EXPECT origin_op: MatMul
# EXPECT cause: float16, overflow
# EXPECT kind: forward
# EXPECT absent: came in from outside

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(7)
features = (rng.rand(64, 8) * 60).astype(np.float16)
gram = tf.matmul(features, features, transpose_a=True)  # FIX
print("trace", float(tf.linalg.trace(tf.cast(gram, tf.float32))))
tf.debugging.experimental.disable_dump_debug_info()
