"""Data read by a Python generator carries a NaN into a tf.data pipeline.

Records are parsed in a Python generator (a sensor log with a corrupt reading parsed as
NaN) and wrapped with tf.data.Dataset.from_generator, then batched and trained on in a
custom loop. The NaN enters the program with the dataset the generator feeds.
"""
# EXPECT origin_op: IteratorGetNext|Placeholder|PyFunc|EagerPyFunc|FlatMapDataset
# EXPECT cause: data|dataset|input pipeline
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(63)

rng = np.random.RandomState(63)
readings = rng.rand(24, 3).astype("float32")
readings[9, 0] = np.nan  # a corrupt line in the log


def records():
    for row in readings:
        yield row, np.float32(row.sum())


dataset = tf.data.Dataset.from_generator(  # FIX
    records, output_signature=(tf.TensorSpec((3,), tf.float32), tf.TensorSpec((), tf.float32))
).batch(8)
w = tf.Variable(tf.zeros([3, 1]))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.squeeze(tf.matmul(x, w), -1) - y))
    w.assign_sub(0.1 * tape.gradient(loss, w))
    return loss


for x, y in dataset:
    print("loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
