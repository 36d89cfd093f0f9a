"""Center loss: tf.norm of a zero vector has a NaN gradient.

A training step as one @tf.function with the GradientTape inside. The loss pulls each
embedding toward its class center with tf.norm(embedding - center). One sample sits exactly
on its center, the norm is 0 and finite, but d/dx sqrt(x) at 0 = 1/0: the gradient is NaN.
"""
# EXPECT origin_op: SqrtGrad
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(3)
features = rng.randn(8, 4).astype("float32")
labels = np.array([0, 1, 0, 1, 0, 1, 0, 1])
centers = tf.Variable(np.stack([features[0], features[1] + 0.5]))  # center 0 = sample 0
proj = tf.Variable(np.eye(4, dtype="float32"))
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        emb = tf.matmul(x, proj)
        dist = tf.norm(emb - tf.gather(centers, y), axis=1)  # FIX
        loss = tf.reduce_mean(dist)
    grads = tape.gradient(loss, [proj, centers])
    optimizer.apply_gradients(zip(grads, [proj, centers], strict=True))
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(features, labels)))

tf.debugging.experimental.disable_dump_debug_info()
