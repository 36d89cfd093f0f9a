"""strategy.run: the replica step is converted by AutoGraph and runs under a strategy.

A training loop written for tf.distribute with the default single-device strategy
(OneDeviceStrategy on the CPU). The per-replica step has a hand-written binary cross
entropy whose log(1 - p) goes to -inf when the sigmoid saturates to exactly 1.
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

strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
rng = np.random.RandomState(25)
x = rng.randn(32, 4).astype("float32") * 5.0
y = (rng.rand(32, 1) > 0.5).astype("float32")
with strategy.scope():
    w = tf.Variable(rng.randn(4, 1).astype("float32") * 8.0)
    opt = tf.keras.optimizers.SGD(0.05)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        p = tf.sigmoid(tf.matmul(x, w))
        neg = (1.0 - y) * tf.math.log(1.0 - p)  # FIX
        loss = -tf.reduce_mean(y * tf.math.log(p + 1e-7) + neg)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(x, y):
    per_replica = strategy.run(replica_step, args=(x, y))
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for step in range(2):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
