"""NaN in the data, fed by hand: numpy batches passed straight to a tf.function.

No tf.data: the training loop slices numpy arrays and passes the batches to a @tf.function.
A sensor dropout left NaN in the recordings; it enters TensorFlow at the call that feeds
the batch.
"""
# EXPECT origin_op: Placeholder|MatMul
# EXPECT cause: data|input|argument|fed
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="CONCISE_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(17)
signals = np.sin(np.linspace(0, 20, 64 * 8)).reshape(64, 8).astype("float32")
signals[37, 4:] = np.nan  # sensor dropout
labels = (signals[:, 0] > 0).astype("float32").reshape(-1, 1)
w = tf.Variable(rng.randn(8, 1).astype("float32") * 0.1)
b = tf.Variable(tf.zeros([1]))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, w) + b
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
    gw, gb = tape.gradient(loss, [w, b])
    w.assign_sub(0.1 * gw)
    b.assign_sub(0.1 * gb)
    return loss


for i in range(0, 64, 16):
    loss = train_step(signals[i:i + 16], labels[i:i + 16])  # FIX
    print("batch", i, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
