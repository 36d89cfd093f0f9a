"""AutoGraph control flow: Newton's method in a tf.function with a Python loop over tensors.

A @tf.function solves x³ - a = 0 by Newton iterations written with a Python `for` over
tf.range and an `if` on a tensor, which AutoGraph turns into a while loop and a cond. For
a = 0 the iterate reaches 0, the derivative 3x² is 0, and the Newton step divides 0 by 0.
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
def cube_root(a, iterations=60):
    x = tf.where(a > 1.0, a / 3.0, a)
    for _ in tf.range(iterations):
        f = x * x * x - a
        if tf.reduce_max(tf.abs(f)) < 1e-12:
            break
        x = x - f / (3.0 * x * x)  # FIX
    return x


print(cube_root(tf.constant(np.array([8.0, 27.0, 0.0, 2.0], dtype="float32"))).numpy())

tf.debugging.experimental.disable_dump_debug_info()
