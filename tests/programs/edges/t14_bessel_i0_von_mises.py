"""A von Mises log-normaliser with a large concentration: bessel_i0 overflows float32.

I0(κ) grows like e^κ; for κ above ≈90 it is beyond float32. Use the scaled
tf.math.bessel_i0e and add κ in log space.
"""
# EXPECT origin_op: BesselI0
# EXPECT cause: overflow, bessel_i0e|i0e
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)


kappa = np.array([2.0, 120.0, 10.0], np.float32)


@tf.function
def log_normaliser(k):
    return tf.math.log(2.0 * np.pi * tf.math.bessel_i0(k))  # FIX


print(log_normaliser(kappa).numpy())
tf.debugging.experimental.disable_dump_debug_info()
