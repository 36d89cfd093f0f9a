"""The TensorFlow tutorial's structure: `model` and `loss` are separate tf.functions.

A small MLP classifier; `model` and `cross_entropy` are each a @tf.function, called eagerly
under tf.GradientTape, so TensorFlow rewrites them into forward/backward functions. The
hand-written cross entropy takes log(softmax): badly scaled weights saturate the softmax to
exact zeros, and log(0) = -inf.
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

rng = np.random.RandomState(0)
x_train = rng.rand(64, 20).astype("float32") * 10.0
y_train = np.eye(4, dtype="float32")[rng.randint(0, 4, 64)]

w1 = tf.Variable(rng.randn(20, 32).astype("float32"))
b1 = tf.Variable(tf.zeros([32]))
w2 = tf.Variable(rng.randn(32, 4).astype("float32") * 5.0)
b2 = tf.Variable(tf.zeros([4]))


@tf.function
def model(x):
    hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
    logits = tf.matmul(hidden, w2) + b2
    return tf.nn.softmax(logits)


@tf.function
def cross_entropy(probs, labels):
    return -tf.reduce_mean(tf.reduce_sum(labels * tf.math.log(probs), axis=1))  # FIX


optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
for step in range(3):
    with tf.GradientTape() as tape:
        probs = model(x_train)
        loss = cross_entropy(probs, y_train)
    grads = tape.gradient(loss, [w1, b1, w2, b2])
    optimizer.apply_gradients(zip(grads, [w1, b1, w2, b2], strict=True))
    print("step", step, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
