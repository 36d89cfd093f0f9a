"""NaN made in the input pipeline: a log transform inside dataset.map meets a zero.

Skewed count features are log-transformed in a tf.data map function before batching. A
count of 0 gives log(0) = -inf inside the pipeline. Training sees it as input data, but it
is made by an op of the user's own preprocessing function (recorded in the dataset's
function graph), and that op's line is the one to change — not the dataset's creation.
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

rng = np.random.RandomState(36)
counts = rng.poisson(3.0, (40, 3)).astype("float32")  # some counts are 0
targets = rng.rand(40, 1).astype("float32")


def preprocess(features, target):
    features = tf.math.log(features)  # FIX
    return features, target


dataset = tf.data.Dataset.from_tensor_slices((counts, targets)).map(preprocess).batch(10)
w = tf.Variable(rng.randn(3, 1).astype("float32") * 0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
    w.assign_sub(0.01 * tape.gradient(loss, w))
    return loss


for x, y in dataset:
    print("loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
