"""A pair energy in float16: the squares of coordinates of a few hundred overflow 65504.

Positions come from a simulation as a float16 numpy array and go straight into a
tf.function. The coordinates are finite (up to ~1000), but 300² = 90000 is beyond float16's
largest value: Square itself overflows. That the argument came from numpy (outside any
recorded op) is not the cause.
"""
# EXPECT origin_op: Square
# EXPECT cause: float16, overflow|65504
# EXPECT kind: forward
# EXPECT absent: came in from outside

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(5)
positions = (rng.randn(16, 3) * 400).astype(np.float16)


@tf.function
def energy(x):
    sq = tf.square(x)  # FIX
    return 0.5 * tf.reduce_sum(sq, axis=-1)


print("energy", energy(positions).numpy()[:4])
tf.debugging.experimental.disable_dump_debug_info()
