"""The angle between parallel vectors: a rounded cosine of 1.0000001 makes acos NaN.

Cosine similarity computed by hand as dot / (|a| |b|) can round to slightly above 1 for
parallel vectors, and acos outside [-1, 1] is NaN. Recorded in FULL_TENSOR mode, so the
values themselves are in the logdir.
"""
# EXPECT origin_op: Acos
# EXPECT cause: outside|> 1|greater than 1|exceed|domain
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)

rng = np.random.RandomState(7)
a = rng.randn(16, 3).astype("float32")
b = a * 3.0  # the same directions, longer


@tf.function
def angle_between(a, b):
    cos = tf.reduce_sum(a * b, axis=1) / (tf.norm(a, axis=1) * tf.norm(b, axis=1))
    return tf.acos(cos)  # FIX


angles = angle_between(a, b)
print("mean angle", float(tf.reduce_mean(angles)))

tf.debugging.experimental.disable_dump_debug_info()
