"""Log normaliser of a Beta distribution whose concentration reached 0.

Concentrations are made non-negative with relu; one of them is exactly 0, and lgamma(0)
is +inf (a pole). Keep them positive: softplus(z) + 1e-6.
"""
# EXPECT origin_op: Lgamma
# EXPECT cause: pole, zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


z = np.array([1.5, -0.3, 2.0], np.float32)


@tf.function
def log_beta(z):
    conc = tf.nn.relu(z)
    return tf.math.lgamma(conc)  # FIX


print(log_beta(z).numpy())
tf.debugging.experimental.disable_dump_debug_info()
