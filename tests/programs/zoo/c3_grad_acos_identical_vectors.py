"""Angular loss with acos of a clipped cosine: identical directions give an infinite gradient.

The user learned to clip the cosine to [-1, 1] before tf.acos, so the forward pass is clean.
Where prediction and target point the same way the clipped cosine is exactly 1, acos(1) = 0,
and the derivative -1/sqrt(1 - x²) is -1/0.
"""
# EXPECT origin_op: Reciprocal|Rsqrt|RealDiv
# EXPECT forward_op: Acos
# EXPECT cause: gradient|derivative, acos
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(7)
directions = rng.randn(16, 3).astype("float32")
scale = tf.Variable(tf.ones([3]) * 3.0)  # starts as a pure scaling: same directions


@tf.function
def train_step(x, target):
    with tf.GradientTape() as tape:
        pred = tf.math.l2_normalize(x * scale, axis=1)
        cos = tf.reduce_sum(pred * tf.math.l2_normalize(target, axis=1), axis=1)
        angle = tf.acos(tf.clip_by_value(cos, -1.0, 1.0))  # FIX
        loss = tf.reduce_mean(angle)
    scale.assign_sub(0.1 * tape.gradient(loss, scale))
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(directions, directions)))

tf.debugging.experimental.disable_dump_debug_info()
