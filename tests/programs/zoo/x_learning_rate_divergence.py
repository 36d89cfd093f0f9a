"""Training diverges: a learning rate too large for unscaled features blows the weights up.

The most common NaN of all. A linear regression on features in the tens, trained with SGD
at a learning rate that would be fine for normalised inputs. Each step overshoots more
than the last: loss and weights grow geometrically until they overflow float32 and turn
into inf and NaN. No single op is wrong; the step size is.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(42)
x = (rng.rand(64, 3) * 40.0).astype("float32")  # e.g. ages, temperatures: not normalised
y = (x @ np.array([[0.5], [-1.0], [2.0]], dtype="float32") + 3.0).astype("float32")
w = tf.Variable(tf.zeros([3, 1]))
b = tf.Variable(tf.zeros([1]))
opt = tf.keras.optimizers.SGD(learning_rate=0.01)  # FIX


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    grads = tape.gradient(loss, [w, b])
    opt.apply_gradients(zip(grads, [w, b], strict=True))
    return loss


for step in range(40):
    loss = train_step(x, y)
    if step % 10 == 0:
        print("step", step, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
