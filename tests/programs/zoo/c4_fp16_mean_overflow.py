"""An activation penalty in float16: every square fits, their mean's sum does not.

A float16 model (weights and activations cast to half precision to save memory) adds an
activation penalty mean(h²). Unnormalised inputs give activations up to about 200: each
square is below float16's largest value 65504, but reduce_mean sums them in float16 first
and the sum overflows to +inf.
"""
# EXPECT origin_op: Mean
# EXPECT cause: float16, overflow|65504
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(12)
x = (rng.rand(16, 10) * 255.0).astype("float16")  # raw pixel values, not scaled
y = rng.rand(16, 1).astype("float16")
w1 = tf.Variable((rng.randn(10, 8) * 0.3).astype("float16"))
w2 = tf.Variable((rng.randn(8, 1) * 0.3).astype("float16"))
opt = tf.keras.optimizers.SGD(1e-4)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        h = tf.nn.relu(tf.matmul(x, w1))
        pred = tf.matmul(h, w2)
        penalty = tf.reduce_mean(tf.square(h))  # FIX
        loss = tf.reduce_mean(tf.square(pred - y)) + 1e-3 * penalty
    grads = tape.gradient(loss, [w1, w2])
    opt.apply_gradients(zip(grads, [w1, w2], strict=True))
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
