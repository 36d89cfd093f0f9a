"""Binary cross entropy by hand: log(1 - sigmoid(z)) when the sigmoid saturates to 1.0.

A logistic-regression loss written from the textbook formula. For a logit of 20 or more,
sigmoid(z) rounds to exactly 1.0 in float32, 1 - 1 = 0 and log(0) = -inf.
"""
# EXPECT origin_op: Log
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(29)
x = rng.randn(64, 5).astype("float32") * 3.0
y = (rng.rand(64, 1) > 0.5).astype("float32")
w = tf.Variable(rng.randn(5, 1).astype("float32") * 4.0)
opt = tf.keras.optimizers.SGD(0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        p = tf.sigmoid(tf.matmul(x, w))
        bce = -(y * tf.math.log(p) + (1.0 - y) * tf.math.log(1.0 - p))  # FIX
        loss = tf.reduce_mean(bce)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
