"""A hand-written gradient (tf.custom_gradient) that divides 0 by 0.

The user writes a norm with its own gradient, x / ‖x‖, to "make it stable". For a zero
vector the custom gradient divides 0 by 0. The NaN is born in the backward pass, but in an
op the user wrote: the line to change is inside the gradient function, not the forward op.
"""
# EXPECT origin_op: RealDiv
# EXPECT forward_op: *
# EXPECT cause: zero|0/0
# EXPECT kind: gradient
# EXPECT fix_at: op

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


@tf.custom_gradient
def stable_norm(x):
    n = tf.sqrt(tf.reduce_sum(tf.square(x), axis=-1, keepdims=True))

    def grad(dy):
        return dy * x / n  # FIX

    return n, grad


rng = np.random.RandomState(40)
codes = rng.randn(6, 3).astype("float32")
codes[4] = 0.0  # a dead code
w = tf.Variable(np.eye(3, dtype="float32"))


@tf.function
def train_step(c):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(stable_norm(tf.matmul(c, w)) - 1.0))
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(codes)))

tf.debugging.experimental.disable_dump_debug_info()
