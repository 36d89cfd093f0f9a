"""Keras set_weights with a NaN weight, then fit: the variable held NaN before training.

The user transfers weights from another model with layer.set_weights. One entry of the
kernel is NaN (a diverged source model). Training afterwards reads the NaN weight in its
first step; the write that put it there is the set_weights call.
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
    logdir, tensor_debug_mode="CURT_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(22)

rng = np.random.RandomState(22)
x = rng.rand(32, 4).astype("float32")
y = rng.rand(32, 1).astype("float32")
model = tf.keras.Sequential([tf.keras.layers.Input((4,)), tf.keras.layers.Dense(3, "tanh"),
                             tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")

source_kernel = rng.randn(4, 3).astype("float32")
source_kernel[2, 1] = np.nan  # the source model had diverged
model.layers[0].set_weights([source_kernel, np.zeros(3, "float32")])  # FIX
model.fit(x, y, epochs=1, batch_size=16, verbose=0)
print("kernel finite:", bool(np.isfinite(model.layers[0].get_weights()[0]).all()))

tf.debugging.experimental.disable_dump_debug_info()
