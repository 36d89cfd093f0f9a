"""NaN in the data, Keras fit: an infinite label from a division in preprocessing.

Targets are a ratio computed in numpy; one denominator is 0, so one label is +inf. The
dataset is built with tf.data and handed to model.fit, which iterates it inside its own
tf.function. The bad value enters the program with the dataset.
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
tf.keras.utils.set_random_seed(16)

rng = np.random.RandomState(16)
x = rng.rand(48, 6).astype("float32")
clicks = rng.randint(0, 50, 48).astype("float32")
views = rng.randint(1, 100, 48).astype("float32")
views[20] = 0.0  # an item nobody saw
with np.errstate(divide="ignore", invalid="ignore"):
    ctr = (clicks / views).reshape(-1, 1)

ds = tf.data.Dataset.from_tensor_slices((x, ctr)).shuffle(48, seed=1).batch(16)  # FIX
model = tf.keras.Sequential([tf.keras.layers.Input((6,)), tf.keras.layers.Dense(8, "relu"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(ds, epochs=1, verbose=0)
print("weights finite:", all(np.isfinite(w).all() for w in model.get_weights()))

tf.debugging.experimental.disable_dump_debug_info()
