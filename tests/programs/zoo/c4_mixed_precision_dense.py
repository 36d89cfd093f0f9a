"""Keras mixed precision in a custom loop: a float16 Dense overflows on unscaled inputs.

The user turns on the "mixed_float16" policy and trains a subclassed Keras model in a
custom loop. Raw 16-bit sensor readings (up to 60000) go straight into the first Dense layer,
whose float16 matmul exceeds 65504 and returns inf; softmax of inf is NaN.
"""
# EXPECT origin_op: MatMul
# EXPECT cause: float16, overflow|65504
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.mixed_precision.set_global_policy("mixed_float16")
tf.keras.utils.set_random_seed(14)


class Classifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(32, activation="relu")
        self.out = tf.keras.layers.Dense(3)

    def call(self, x):
        h = self.hidden(x)  # FIX
        return self.out(h)


rng = np.random.RandomState(14)
readings = (rng.rand(64, 16) * 60000.0).astype("float32")  # raw sensor counts
labels = rng.randint(0, 3, 64)
model = Classifier()
loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
opt = tf.keras.optimizers.Adam(1e-3)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = loss_fn(y, tf.cast(logits, tf.float32))
    grads = tape.gradient(loss, model.trainable_variables)
    opt.apply_gradients(zip(grads, model.trainable_variables, strict=True))
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(readings, labels)))

tf.debugging.experimental.disable_dump_debug_info()
