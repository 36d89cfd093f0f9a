"""A "safe" KL divergence behind tf.where: the masked branch still takes log(0).

Distillation onto soft labels: the target distributions p have exact zeros, so the user
guards the KL term with tf.where(p > 0, p * log(p / q), 0). The loss is finite, but tf.where
computes both branches: log(0 / q) = -inf is computed for every zero of p, and its gradient
(0 × 1/0) is NaN — the weights are NaN after the first step.
"""
# EXPECT origin_op: Log
# EXPECT cause: zero, tf.where
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(44)

rng = np.random.RandomState(44)
x = rng.randn(32, 6).astype("float32")
teacher = rng.dirichlet(np.ones(5), 32).astype("float32")
teacher[teacher < 0.1] = 0.0  # the teacher's small probabilities were pruned
teacher /= teacher.sum(axis=1, keepdims=True)

student = tf.keras.Sequential([tf.keras.layers.Input((6,)), tf.keras.layers.Dense(5)])
opt = tf.keras.optimizers.SGD(0.1)


@tf.function
def distill_step(x, p):
    with tf.GradientTape() as tape:
        q = tf.nn.softmax(student(x))
        kl = tf.where(p > 0, p * tf.math.log(p / q), tf.zeros_like(p))  # FIX
        loss = tf.reduce_mean(tf.reduce_sum(kl, axis=-1))
    grads = tape.gradient(loss, student.trainable_variables)
    opt.apply_gradients(zip(grads, student.trainable_variables, strict=True))
    return loss


for step in range(3):
    print("step", step, "kl", float(distill_step(x, teacher)))

tf.debugging.experimental.disable_dump_debug_info()
