"""A hand-written LayerNorm in a custom layer: rsqrt of a variance without an epsilon.

A custom training loop (tf.data, a tf.function(jit_compile=False) step, GradientTape) trains
a small model whose first layer is the user's own LayerNorm. It normalises each row with
tf.math.rsqrt(variance) — no epsilon. Missing recordings were stored as rows of zeros: their
variance is exactly 0, rsqrt(0) = +inf, and (x - mean) * inf = 0 * inf = NaN.
"""
# EXPECT origin_op: Rsqrt
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(42)


class LayerNorm(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.gamma = self.add_weight(shape=input_shape[-1:], initializer="ones")
        self.beta = self.add_weight(shape=input_shape[-1:], initializer="zeros")

    def call(self, x):
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        inv_std = tf.math.rsqrt(variance)  # FIX
        return (x - mean) * inv_std * self.gamma + self.beta


rng = np.random.RandomState(42)
signals = rng.randn(48, 12).astype("float32")
signals[[7, 30]] = 0.0  # two recordings are missing: stored as zeros
targets = rng.randn(48, 1).astype("float32")
dataset = tf.data.Dataset.from_tensor_slices((signals, targets)).shuffle(48, seed=2).batch(16)

model = tf.keras.Sequential([tf.keras.layers.Input((12,)), LayerNorm(),
                             tf.keras.layers.Dense(16, activation="relu"),
                             tf.keras.layers.Dense(1)])
opt = tf.keras.optimizers.Adam(1e-3)


@tf.function(jit_compile=False)
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for epoch in range(1):
    for x, y in dataset:
        loss = train_step(x, y)
    print("epoch", epoch, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
