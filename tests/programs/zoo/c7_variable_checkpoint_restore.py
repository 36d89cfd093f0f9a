"""Resuming from a checkpoint saved after the previous run had diverged.

An earlier run (simulated first, before dumping starts) saved a checkpoint whose weights
already held NaN. This run restores it with tf.train.Checkpoint and carries on training:
the NaN comes in with the restore, long before any op computes anything.
"""
# EXPECT origin_op: RestoreV2
# EXPECT cause: checkpoint
# EXPECT kind: data

import os
import sys
import tempfile

import numpy as np
import tensorflow as tf

rng = np.random.RandomState(41)
w = tf.Variable(rng.randn(4, 1).astype("float32"))
b = tf.Variable(tf.zeros([1]))
ckpt = tf.train.Checkpoint(w=w, b=b)

# the previous run: diverged, then saved
w.assign(np.array([[0.5], [np.nan], [0.1], [0.2]], dtype="float32"))
path = ckpt.write(os.path.join(tempfile.mkdtemp(), "ckpt"))
w.assign(tf.zeros([4, 1]))

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

ckpt.read(path)  # FIX
x = rng.rand(16, 4).astype("float32")
y = rng.rand(16, 1).astype("float32")


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * gw)
    b.assign_sub(0.1 * gb)
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
