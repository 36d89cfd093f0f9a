"""A custom Keras layer in model.fit: distance to a prototype that equals an input.

An RBF-style network with a custom layer holding learned prototypes, initialised (as is
common) from training samples. The layer's euclidean distance is sqrt(0) = 0 for the sample
a prototype was copied from, and the gradient of sqrt at 0 makes the weights NaN after
the first step of model.fit.
"""
# EXPECT origin_op: SqrtGrad
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(38)


class PrototypeDistance(tf.keras.layers.Layer):
    def __init__(self, init_prototypes):
        super().__init__()
        self.init_prototypes = init_prototypes

    def build(self, input_shape):
        self.prototypes = self.add_weight(
            shape=self.init_prototypes.shape,
            initializer=tf.keras.initializers.Constant(self.init_prototypes))

    def call(self, x):
        diff = tf.expand_dims(x, 1) - tf.expand_dims(self.prototypes, 0)
        return tf.sqrt(tf.reduce_sum(tf.square(diff), axis=-1))  # FIX


rng = np.random.RandomState(38)
x = rng.randn(32, 4).astype("float32")
y = rng.randint(0, 2, 32)
model = tf.keras.Sequential([tf.keras.layers.Input((4,)), PrototypeDistance(x[:6].copy()),
                             tf.keras.layers.Dense(2)])
model.compile(optimizer="sgd",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
print("weights finite:", all(np.isfinite(w).all() for w in model.get_weights()))

tf.debugging.experimental.disable_dump_debug_info()
