"""Expected log of a Dirichlet variable: digamma of a concentration that is 0.

E[log p_i] = digamma(alpha_i) − digamma(sum alpha); one alpha comes out of relu as 0 and
digamma has a pole at 0.
"""
# EXPECT origin_op: Digamma
# EXPECT cause: pole
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


logits = np.array([0.7, -1.2, 0.4], np.float32)


@tf.function
def expected_log(z):
    alpha = tf.nn.relu(z)
    return tf.math.digamma(alpha) - tf.math.digamma(tf.reduce_sum(alpha))  # FIX


print(expected_log(logits).numpy())
tf.debugging.experimental.disable_dump_debug_info()
