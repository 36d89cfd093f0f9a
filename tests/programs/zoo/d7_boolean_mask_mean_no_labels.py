"""Semi-supervised loss: the mean over the labelled examples of a batch that has none.

Only some examples carry a label (-1 means unlabelled). The supervised part of the loss is
the mean cross-entropy over the labelled ones, selected with tf.boolean_mask. One batch has
no labelled example at all: the mean of an empty tensor is 0 / 0 = NaN.
"""
# EXPECT origin_op: Mean
# EXPECT cause: empty
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(51)

rng = np.random.RandomState(51)
x = rng.randn(32, 5).astype("float32")
labels = np.where(rng.rand(32) < 0.3, rng.randint(0, 4, 32), -1).astype("int32")
labels[16:24] = -1  # the third batch happens to have no labelled example

model = tf.keras.Sequential([tf.keras.layers.Input((5,)), tf.keras.layers.Dense(4)])
opt = tf.keras.optimizers.Adam(1e-2)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)
        labelled = y >= 0
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits(tf.maximum(y, 0), logits)
        supervised = tf.reduce_mean(tf.boolean_mask(ce, labelled))  # FIX
        probs = tf.nn.softmax(logits)
        entropy = -tf.reduce_mean(tf.reduce_sum(probs * tf.math.log(probs + 1e-9), -1))
        loss = supervised + 0.1 * entropy
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for start in range(0, 32, 8):
    loss = train_step(x[start:start + 8], labels[start:start + 8])
    print("batch", start // 8, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
