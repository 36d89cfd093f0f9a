"""Gamma correction guarded by tf.where: a clean forward pass, a NaN gradient.

An image model applies gamma correction x ** (1/2.2) to ReLU outputs and guards the zeros
with tf.where(x > 0, ..., 0). The forward pass is finite (0 ** 0.45 = 0), but the gradient of
the unselected branch is 0.45 * 0 ** -0.55 = inf, and tf.where's zero times inf is NaN.
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

tf.keras.utils.set_random_seed(11)  # the initial kernel too: some ReLU outputs are 0
rng = np.random.RandomState(11)
images = rng.rand(4, 8, 8, 1).astype("float32")
targets = images ** (1 / 2.2)
conv = tf.keras.layers.Conv2D(1, 3, padding="same", activation="relu")
conv.build((None, 8, 8, 1))
opt = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        h = conv(x)
        out = tf.where(h > 0, tf.pow(h, 1 / 2.2), tf.zeros_like(h))  # FIX
        loss = tf.reduce_mean(tf.square(out - y))
    grads = tape.gradient(loss, conv.trainable_variables)
    opt.apply_gradients(zip(grads, conv.trainable_variables, strict=True))
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(images, targets)))

tf.debugging.experimental.disable_dump_debug_info()
