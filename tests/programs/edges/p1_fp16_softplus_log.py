"""A noise scale kept positive with softplus, in float16, then its log in the loss.

A half-precision regression head predicts a raw scale; softplus keeps it positive and the
loss adds log(scale). For raw values below about −17, softplus(raw) ≈ e^raw is smaller than
float16's smallest subnormal (6e-8) and rounds to 0, so log(scale) = −inf. The zeros are
float16 underflow at the softplus line (in float32 they would be ~1e-9).
"""
# EXPECT origin_op: Log
# EXPECT cause: float16, underflow, softplus
# EXPECT kind: forward
# EXPECT fix_op: Softplus
# EXPECT absent: not the cause

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(3)
x = rng.randn(32, 4).astype("float16")
y = rng.randn(32, 1).astype("float16")
w = tf.Variable((rng.randn(4, 1) * 8).astype("float16"))


@tf.function
def loss_fn(x, y):
    raw = tf.matmul(x, w) - 10.0
    scale = tf.nn.softplus(raw)  # FIX
    penalty = tf.math.log(scale)
    return tf.reduce_mean(penalty + 0.5 * tf.square(y))


print("loss", float(loss_fn(x, y)))
tf.debugging.experimental.disable_dump_debug_info()
