"""model.fit on numpy arrays with a missing value: NaN enters with the arrays given to fit.

A CSV column with an empty cell was parsed as NaN; the arrays go straight into model.fit
(no tf.data in the user's code: Keras makes the dataset inside fit). The NaN enters the
program at the fit call. The first tensor TensorFlow records with the NaN is the argument of
the map function Keras applies to the array slices (or, without that map, the iterator's
output): either is where the data enters.
"""
# EXPECT origin_op: Placeholder|IteratorGetNext
# EXPECT cause: data|dataset|input pipeline
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(53)

rng = np.random.RandomState(53)
table = rng.rand(30, 4).astype("float32")
table[7, 1] = np.nan  # an empty cell in the CSV
y = rng.rand(30, 1).astype("float32")

model = tf.keras.Sequential([tf.keras.layers.Input((4,)), tf.keras.layers.Dense(8, "relu"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="adam", loss="mse")
model.fit(table, y, epochs=1, batch_size=10, verbose=0)  # FIX

tf.debugging.experimental.disable_dump_debug_info()
