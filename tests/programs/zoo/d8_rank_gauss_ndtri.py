"""RankGauss preprocessing: the inverse normal CDF of a rank fraction that reaches 1.

Tabular features are made Gaussian by ranking each column and mapping rank / (n - 1) through
the inverse normal CDF, tf.math.ndtri. The smallest rank maps to 0 and the largest to 1:
ndtri(0) = -inf and ndtri(1) = +inf — values at the edge of its domain, not an overflow.
"""
# EXPECT origin_op: Ndtri
# EXPECT cause: ndtri(1)|ndtri(0)
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(52)

rng = np.random.RandomState(52)
raw = rng.lognormal(size=(40, 3)).astype("float32")
target = rng.rand(40, 1).astype("float32")


@tf.function
def rank_gauss(columns):
    ranks = tf.cast(tf.argsort(tf.argsort(columns, axis=0), axis=0), tf.float32)
    fraction = ranks / (tf.cast(tf.shape(columns)[0], tf.float32) - 1.0)
    return tf.math.ndtri(fraction)  # FIX


features = rank_gauss(tf.constant(raw))
model = tf.keras.Sequential([tf.keras.layers.Input((3,)), tf.keras.layers.Dense(1)])
model.compile(optimizer="sgd", loss="mse")
model.fit(features, target, epochs=1, batch_size=20, verbose=0)

tf.debugging.experimental.disable_dump_debug_info()
