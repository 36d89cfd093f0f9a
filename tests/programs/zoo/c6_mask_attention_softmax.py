"""Attention masking with -inf: a fully masked row makes softmax NaN.

Scaled dot-product attention masks padded keys by setting their scores to -inf before the
softmax, as many tutorials do. One sequence in the batch is all padding: its row is -inf
everywhere, and softmax of a row of -inf is NaN (-inf - (-inf)). The -inf is deliberate;
the NaN is the bug.
"""
# EXPECT origin_op: Softmax
# EXPECT cause: −∞|-inf
# EXPECT kind: forward
# EXPECT deliberate: Const

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(18)
batch, length, dim = 3, 5, 4
tokens = rng.randn(batch, length, dim).astype("float32")
lengths = np.array([5, 3, 0])  # the last sequence is empty: all padding
key_mask = np.arange(length)[None, :] < lengths[:, None]
wq = tf.Variable(rng.randn(dim, dim).astype("float32"))
wk = tf.Variable(rng.randn(dim, dim).astype("float32"))
wv = tf.Variable(rng.randn(dim, dim).astype("float32"))


@tf.function
def attention(x, mask):
    q, k, v = tf.matmul(x, wq), tf.matmul(x, wk), tf.matmul(x, wv)
    scores = tf.matmul(q, k, transpose_b=True) / tf.sqrt(float(dim))
    scores = tf.where(mask[:, None, :], scores, float("-inf"))
    weights = tf.nn.softmax(scores, axis=-1)  # FIX
    return tf.matmul(weights, v)


out = attention(tokens, key_mask)
print("output finite:", bool(tf.reduce_all(tf.math.is_finite(out))))

tf.debugging.experimental.disable_dump_debug_info()
