"""NaN in the data: a missing value in the training array, fed through tf.data.

The features come from a table where one missing value was read as NaN. The user builds a
tf.data.Dataset from the arrays and iterates over it in an eager loop, calling a
@tf.function train step per batch. The NaN enters the program with the dataset.
"""
# EXPECT origin_op: IteratorGetNext
# EXPECT cause: data|dataset|input pipeline
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(15)
features = rng.rand(40, 5).astype("float32")
features[13, 2] = np.nan  # a missing value in the table
targets = rng.rand(40, 1).astype("float32")

model = tf.keras.Sequential([tf.keras.layers.Input((5,)), tf.keras.layers.Dense(8),
                             tf.keras.layers.Dense(1)])
opt = tf.keras.optimizers.SGD(0.01)
dataset = tf.data.Dataset.from_tensor_slices((features, targets)).batch(8)  # FIX


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for epoch in range(1):
    for x_batch, y_batch in dataset:
        loss = train_step(x_batch, y_batch)
    print("epoch", epoch, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
