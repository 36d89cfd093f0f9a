"""A tf.while_loop body: power iteration without normalisation overflows.

The user estimates the largest eigenvalue of a matrix by power iteration written with
tf.while_loop, but forgot to normalise the vector in the loop body. Its norm grows by the
largest eigenvalue (about 25) every iteration and overflows float32 within 30 iterations.
"""
# EXPECT origin_op: MatMul
# EXPECT cause: overflow
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="CONCISE_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(32)
a = rng.rand(6, 6).astype("float32") * 4.0
matrix = tf.constant(a + a.T)


@tf.function
def largest_eigenvalue(m, steps=60):
    def body(i, v):
        v = tf.matmul(m, v)  # FIX
        return i + 1, v

    _, v = tf.while_loop(lambda i, v: i < steps, body, [tf.constant(0), tf.ones([6, 1])])
    return tf.squeeze(tf.matmul(v, tf.matmul(m, v), transpose_a=True) /
                      tf.matmul(v, v, transpose_a=True))


print("eigenvalue", float(largest_eigenvalue(matrix)))

tf.debugging.experimental.disable_dump_debug_info()
