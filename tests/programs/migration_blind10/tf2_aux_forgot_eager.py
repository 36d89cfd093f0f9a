"""tf1_aux.py in Keras, trained eagerly: the custom ActivityDense layer (tanh, `add_loss` of
0.05 times the mean square of its output), Dense(3), SparseCategoricalCrossentropy(
from_logits=True) (the layer's penalty left in model.losses); SGD(0.5). The TF1 weights from
the saved
arrays.

python tf2_aux_forgot_eager.py DATA_DIR     (DATA_DIR/aux.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "aux.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]


class ActivityDense(tf.keras.layers.Layer):
    """A tanh Dense layer whose activations are penalized (keeps the units unsaturated)."""

    def __init__(self, units, strength, **kwargs):
        super().__init__(**kwargs)
        self.units, self.strength = units, strength

    def build(self, input_shape):
        self.kernel = self.add_weight(name="kernel", shape=(input_shape[-1], self.units))
        self.bias = self.add_weight(name="bias", shape=(self.units,), initializer="zeros")

    def call(self, x):
        hidden = tf.tanh(tf.matmul(x, self.kernel) + self.bias)  # CALL:hidden
        self.add_loss(self.strength * tf.reduce_mean(tf.square(hidden)))  # CALL:aux
        return hidden


model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    ActivityDense(6, 0.05, name="hid"),
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:lossfn

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(saved["x"], training=True)  # CALL:forward
        loss = cross_entropy(saved["labels"], logits)  # BUG:aux_forgot_eager
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
