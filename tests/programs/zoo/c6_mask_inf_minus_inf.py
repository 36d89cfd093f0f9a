"""A hand-written logsumexp over a masked row: -inf - (-inf) = NaN.

Max-pooling over a set with a stable hand-written logsumexp: subtract the row maximum,
exponentiate, sum, log, add the maximum back. Masked entries are -inf by design. A row
where every entry is masked has maximum -inf, and x - max = -inf - (-inf) = NaN.
"""
# EXPECT origin_op: Sub
# EXPECT cause: −∞|-inf
# EXPECT kind: forward
# EXPECT deliberate: Const

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(20)
scores = rng.randn(4, 6).astype("float32")
mask = rng.rand(4, 6) > 0.3
mask[2] = False  # an empty set
NEG_INF = float("-inf")


@tf.function
def masked_logsumexp(scores, mask):
    x = tf.where(mask, scores, NEG_INF)
    m = tf.reduce_max(x, axis=1, keepdims=True)
    shifted = x - m  # FIX
    return tf.squeeze(m, 1) + tf.math.log(tf.reduce_sum(tf.exp(shifted), axis=1))


print(masked_logsumexp(scores, mask).numpy())

tf.debugging.experimental.disable_dump_debug_info()
