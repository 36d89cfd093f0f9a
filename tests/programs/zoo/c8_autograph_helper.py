"""AutoGraph: the NaN is born in a plain Python helper called from a tf.function.

The loss is assembled from small helper functions in the user's module. They are not
decorated; AutoGraph converts them when the @tf.function train step calls them, so their
ops are created from generated code. The focal-loss helper takes log(p) of a probability
that saturates to 0.
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


def focal_term(p, gamma):
    if gamma > 0:
        return tf.pow(1.0 - p, gamma)
    return tf.ones_like(p)


def focal_loss(labels, logits, gamma=2.0):
    p = tf.sigmoid(logits)
    p_t = tf.where(labels > 0, p, 1.0 - p)
    return -tf.reduce_mean(focal_term(p_t, gamma) * tf.math.log(p_t))  # FIX


rng = np.random.RandomState(24)
x = rng.randn(32, 6).astype("float32") * 4.0
labels = (rng.rand(32, 1) > 0.5).astype("float32")
w = tf.Variable(rng.randn(6, 1).astype("float32") * 10.0)
opt = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        loss = focal_loss(labels, tf.matmul(x, w))
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(x, labels)))

tf.debugging.experimental.disable_dump_debug_info()
