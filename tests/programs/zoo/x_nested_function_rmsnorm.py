"""A nested tf.function: RMS normalisation of an all-zero row divides 0 by 0.

A model's forward pass is a @tf.function that calls another @tf.function, `rms_norm`,
which divides by the root mean square without an epsilon. A zero-padded row has RMS 0 and
0 / 0 = NaN.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


@tf.function
def rms_norm(x):
    rms = tf.sqrt(tf.reduce_mean(tf.square(x), axis=-1, keepdims=True))
    return x / rms  # FIX


rng = np.random.RandomState(33)
w = tf.Variable(rng.randn(8, 8).astype("float32"))


@tf.function
def encoder(tokens):
    h = tf.nn.relu(tf.matmul(tokens, w))
    return rms_norm(h)


batch = rng.randn(4, 8).astype("float32")
batch[3] = 0.0  # padding
print(encoder(batch).numpy()[:, :3])

tf.debugging.experimental.disable_dump_debug_info()
