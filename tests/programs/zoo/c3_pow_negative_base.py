"""A cube root written as x ** (1/3): pow of a negative base is NaN.

A regression model compresses its heavy-tailed targets with a cube root before the MSE,
written the natural Python way. The targets include negative values, and pow with a
negative base and a fractional exponent is NaN.
"""
# EXPECT origin_op: Pow
# EXPECT cause: negative
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(8)
x = rng.rand(32, 3).astype("float32")
y = (rng.standard_t(2, size=(32, 1)) * 10.0).astype("float32")
w = tf.Variable(rng.randn(3, 1).astype("float32") * 0.1)
opt = tf.keras.optimizers.Adam(0.01)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = tf.matmul(x, w)
        target = y ** (1.0 / 3.0)  # FIX
        loss = tf.reduce_mean(tf.square(pred - target))
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
