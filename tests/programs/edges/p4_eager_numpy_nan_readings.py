"""Sensor readings with a NaN, loaded with numpy and clipped eagerly.

The NaN is in the numpy array itself; Relu cannot make NaN, so here the input made outside
any recorded op IS the cause: the data carries it, and the line that hands it to
TensorFlow is where to clean it.
"""
# EXPECT origin_op: Relu
# EXPECT cause: data|outside, numpy|input
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

readings = np.linspace(-1.0, 1.0, 24).astype(np.float32).reshape(4, 6)
readings[2, 3] = np.nan  # a dropped sample
active = tf.nn.relu(readings)  # FIX
print("mean", float(tf.reduce_mean(active)))
tf.debugging.experimental.disable_dump_debug_info()
