"""MirroredStrategy over two logical CPU devices: the NaN appears on one replica.

The CPU is split into two logical devices and a MirroredStrategy trains on both, the usual
multi-GPU recipe. Each replica gets half of the global batch; the second half contains an
outlier whose hand-written log-cosh loss overflows: cosh(200) = inf, log(inf) = inf.
"""
# EXPECT origin_op: Cosh
# EXPECT cause: overflow
# EXPECT kind: forward
# EXPECT device: CPU:1

import sys

import numpy as np
import tensorflow as tf

cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.set_logical_device_configuration(
    cpu, [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()])

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
rng = np.random.RandomState(26)
x = rng.rand(16, 3).astype("float32")
y = rng.rand(16, 1).astype("float32")
y[12] = 200.0  # an outlier label in the second half of the batch
dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(16)
dist_dataset = strategy.experimental_distribute_dataset(dataset)

with strategy.scope():
    w = tf.Variable(rng.randn(3, 1).astype("float32"))
    opt = tf.keras.optimizers.SGD(0.01)


def replica_step(x, y):
    with tf.GradientTape() as tape:
        err = tf.matmul(x, w) - y
        per_example = tf.math.log(tf.math.cosh(err))  # FIX
        loss = tf.reduce_sum(per_example) / 16.0
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


@tf.function
def train_step(batch):
    per_replica = strategy.run(replica_step, args=batch)
    return strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica, axis=None)


for batch in dist_dataset:
    print("loss", float(train_step(batch)))

tf.debugging.experimental.disable_dump_debug_info()
