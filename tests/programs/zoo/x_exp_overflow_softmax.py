"""A hand-written softmax: exp of a large logit overflows, and inf / inf is NaN.

A temperature-scaled softmax written as exp(z / T) / sum(exp(z / T)) without subtracting
the maximum. With a low temperature the scaled logits exceed 88.7, exp overflows float32
to inf, and the division gives NaN.
"""
# EXPECT origin_op: Exp
# EXPECT cause: overflow
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(34)
features = rng.randn(8, 16).astype("float32")
w = tf.Variable(rng.randn(16, 5).astype("float32"))


@tf.function
def sharpened_probs(x, temperature):
    z = tf.matmul(x, w) / temperature
    e = tf.exp(z)  # FIX
    return e / tf.reduce_sum(e, axis=-1, keepdims=True)


for t in [1.0, 0.1]:
    print("T", t, sharpened_probs(features, tf.constant(t)).numpy()[0])

tf.debugging.experimental.disable_dump_debug_info()
