"""Heading angles with atan2: the forward pass is fine at (0, 0), the gradient is not.

A trajectory model predicts displacements and is trained on their heading angle,
atan2(dy, dx). A stationary step has dx = dy = 0: atan2(0, 0) = 0 is finite, but its
derivative x / (x² + y²) is 0 / 0 there, and the gradient is NaN.
"""
# EXPECT origin_op: RealDiv|Reciprocal|Mul
# EXPECT forward_op: Atan2
# EXPECT cause: atan2, zero|0/0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(73)

rng = np.random.RandomState(73)
features = rng.randn(12, 4).astype("float32")
features[5] = 0.0  # a stationary agent: no motion features
target_heading = rng.uniform(-np.pi, np.pi, 12).astype("float32")
head = tf.keras.layers.Dense(2, use_bias=False)
head.build((None, 4))
opt = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(x, target):
    with tf.GradientTape() as tape:
        d = head(x)
        heading = tf.math.atan2(d[:, 1], d[:, 0])  # FIX
        loss = tf.reduce_mean(1.0 - tf.cos(heading - target))
    grads = tape.gradient(loss, head.trainable_variables)
    opt.apply_gradients(zip(grads, head.trainable_variables, strict=True))
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(features, target_heading)))

tf.debugging.experimental.disable_dump_debug_info()
