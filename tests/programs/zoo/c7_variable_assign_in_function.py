"""A variable written with NaN inside a tf.function: restoring a bad snapshot.

Training keeps an in-memory snapshot of the weights and a @tf.function `restore` that
assigns it back to roll training back. The snapshot was taken from a step that had
already gone NaN (here: numpy arrays with a NaN). The write happens in a graph; the NaN
appears later, when the next training step reads the weights.
"""
# EXPECT origin_op: ReadVariableOp
# EXPECT cause: variable
# EXPECT kind: variable
# EXPECT write_op: AssignVariableOp

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(23)
x = rng.rand(16, 3).astype("float32")
y = rng.rand(16, 1).astype("float32")
w = tf.Variable(rng.randn(3, 1).astype("float32"))
b = tf.Variable(tf.zeros([1]))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * gw)
    b.assign_sub(0.1 * gb)
    return loss


@tf.function
def restore(w_saved, b_saved):
    w.assign(w_saved)  # FIX
    b.assign(b_saved)


snapshot = (np.array([[0.3], [np.nan], [0.1]], dtype="float32"), np.zeros(1, "float32"))
for step in range(4):
    loss = float(train_step(x, y))
    print("step", step, "loss", loss)
    if step == 1:
        restore(*snapshot)  # roll back to the snapshot

tf.debugging.experimental.disable_dump_debug_info()
