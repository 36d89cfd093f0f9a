"""mixed_float16 with a hand-written GELU: the cube of an activation overflows float16.

The user turns on Keras mixed precision and uses their own tanh-approximation GELU as a
Dense activation. Unscaled tabular inputs (ages, areas in m², …) give pre-activations of a
few hundred; x**3 is beyond float16's largest value 65504 already for x > 40, so tf.pow
returns ±inf (the forward output survives through tanh, the gradient becomes NaN).
"""
# EXPECT origin_op: Pow
# EXPECT cause: float16, overflow|65504
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.mixed_precision.set_global_policy("mixed_float16")
tf.keras.utils.set_random_seed(43)


def gelu(x):
    return 0.5 * x * (1.0 + tf.tanh(0.7978845608 * (x + 0.044715 * tf.pow(x, 3))))  # FIX


rng = np.random.RandomState(43)
features = np.column_stack([rng.randint(18, 90, 64), rng.uniform(20, 300, 64),
                            rng.randint(1, 8, 64), rng.uniform(0, 50, 64)]).astype("float32")
prices = rng.rand(64, 1).astype("float32")

model = tf.keras.Sequential([
    tf.keras.layers.Input((4,)),
    tf.keras.layers.Dense(32, activation=gelu),
    tf.keras.layers.Dense(1, dtype="float32"),
])
model.compile(optimizer="adam", loss="mse")
model.fit(features, prices, batch_size=32, epochs=1, verbose=0)

tf.debugging.experimental.disable_dump_debug_info()
