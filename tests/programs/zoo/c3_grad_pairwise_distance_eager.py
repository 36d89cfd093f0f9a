"""Pairwise euclidean distances, fully eager: the diagonal is sqrt(0) and its gradient NaN.

A contrastive-style embedding loss written eagerly (no tf.function) under GradientTape. The
distance matrix includes each point's distance to itself, sqrt(0) = 0, whose derivative is
infinite; the backward pass turns it into NaN and the weights are ruined after one step.
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

rng = np.random.RandomState(4)
x = tf.constant(rng.randn(6, 3).astype("float32"))
same = tf.constant(np.equal.outer([0, 0, 1, 1, 2, 2], [0, 0, 1, 1, 2, 2]).astype("float32"))
w = tf.Variable(rng.randn(3, 3).astype("float32"))

for step in range(2):
    with tf.GradientTape() as tape:
        emb = tf.matmul(x, w)
        diff = tf.expand_dims(emb, 1) - tf.expand_dims(emb, 0)
        dist = tf.sqrt(tf.reduce_sum(tf.square(diff), axis=-1))  # FIX
        margin = tf.nn.relu(1.0 - dist)
        loss = tf.reduce_mean(same * dist + (1.0 - same) * margin)
    grad = tape.gradient(loss, w)
    w.assign_sub(0.1 * grad)
    print("step", step, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
