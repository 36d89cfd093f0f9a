"""An L1/2 sparsity penalty: |w| ** 0.5 has an infinite gradient at w = 0.

A linear model with a sparsity-inducing penalty sum(|w| ** 0.5). Pruned weights are exactly
zero: 0 ** 0.5 = 0 is fine, but the derivative 0.5 * 0 ** -0.5 = inf, and the penalty's
gradient turns into NaN.
"""
# EXPECT origin_op: Pow
# EXPECT forward_op: Pow
# EXPECT cause: gradient|derivative, zero|at 0|= 0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(9)
x = rng.randn(32, 6).astype("float32")
y = x @ np.array([[1.0], [0.0], [-2.0], [0.0], [0.5], [0.0]], dtype="float32")
w_init = rng.randn(6, 1).astype("float32")
w_init[[1, 3]] = 0.0  # pruned
w = tf.Variable(w_init)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        mse = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
        penalty = tf.reduce_sum(tf.pow(tf.abs(w), 0.5))  # FIX
        loss = mse + 0.01 * penalty
    w.assign_sub(0.05 * tape.gradient(loss, w))
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
