"""A repulsion energy with 1/d²: two particles almost on top of each other.

An optimisation spreads particles apart by minimising the sum of 1/d² over pairs, written
with tf.math.reciprocal. Two particles start 1e-13 apart: 1/d² = 1e26 is still a float32,
but its derivative -1/d⁴ = -1e52 is not, and the gradient is infinite.
"""
# EXPECT origin_op: ReciprocalGrad
# EXPECT forward_op: Reciprocal
# EXPECT cause: gradient|derivative, overflow|float32
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(10)
start = rng.rand(6, 2).astype("float32")
start[0] = [0.0, 0.0]
start[1] = [1e-13, 0.0]  # spawned at the same spot
pos = tf.Variable(start)
n = start.shape[0]
off_diagonal = 1.0 - tf.eye(n)


@tf.function
def step():
    with tf.GradientTape() as tape:
        diff = tf.expand_dims(pos, 1) - tf.expand_dims(pos, 0)
        d2 = tf.reduce_sum(tf.square(diff), axis=-1) + tf.eye(n)
        energy = tf.reduce_sum(tf.math.reciprocal(d2) * off_diagonal) / 2.0  # FIX
    pos.assign_sub(1e-3 * tape.gradient(energy, pos))
    return energy


for i in range(3):
    print("step", i, "energy", float(step()))

tf.debugging.experimental.disable_dump_debug_info()
