"""A tf.function training step whose learning rate a `tf.cond` chooses: 0.1 * 2 (computed in
the true branch) before step BOUNDARY, 0.05 (a constant the false branch returns) from it on.
tfdbg records neither the `If`'s output nor the `Identity` after it, so the rate the update
consumes is only found through the branch that ran.

python cond_rate.py BOUNDARY
"""
import sys

import numpy as np
import tensorflow as tf

boundary = int(sys.argv[1])
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(4, 3)).astype(np.float32))
y = tf.constant(rng.normal(size=(4, 1)).astype(np.float32))
w = tf.Variable(rng.normal(size=(3, 1)).astype(np.float32))
step = tf.Variable(0, dtype=tf.int64, trainable=False)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((tf.matmul(x, w) - y) ** 2)
    g = tape.gradient(loss, w)
    lr = tf.cond(step < boundary, lambda: tf.constant(0.1) * 2.0, lambda: tf.constant(0.05))
    w.assign_sub(lr * g)
    step.assign_add(1)
    return loss


for _ in range(3):
    print(float(train_step()))
