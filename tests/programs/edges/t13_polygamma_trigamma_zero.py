"""Fisher information of a Gamma shape: trigamma (polygamma(1, a)) at a = 0 is a pole.
"""
# EXPECT origin_op: Polygamma
# EXPECT cause: pole
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


shape_raw = np.array([2.0, 0.0, 0.5], np.float32)


@tf.function
def fisher_info(a):
    return tf.math.polygamma(tf.ones_like(a), a)  # FIX


print(fisher_info(shape_raw).numpy())
tf.debugging.experimental.disable_dump_debug_info()
