"""Softmax weights by hand in float16: exp of scores above ~11 overflows.

Scores arrive as a float16 numpy array; the function normalises exp(scores) by its sum.
exp(12) = 162755 is beyond float16's largest value 65504: Exp overflows to +inf (and
inf/inf = NaN after). Subtracting the row maximum first, or float32, fixes it.
"""
# EXPECT origin_op: Exp
# EXPECT cause: float16, overflow|11.09
# EXPECT kind: forward
# EXPECT absent: came in from outside

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(6)
scores = (rng.rand(4, 10) * 20).astype(np.float16)


@tf.function
def attention_weights(s):
    e = tf.exp(s)  # FIX
    return e / tf.reduce_sum(e, axis=-1, keepdims=True)


print(attention_weights(scores).numpy()[0])
tf.debugging.experimental.disable_dump_debug_info()
