"""tf1_aux.py as a Keras Sequential model trained by Model.fit: a custom ActivityDense layer
(tanh, and `add_loss` of 0.05 times the mean square of its output), Dense(3),
SparseCategoricalCrossentropy(from_logits=True); SGD(0.5), the whole set one batch. fit adds
the layer's loss to the cross-entropy itself. The TF1 weights from the saved arrays.

python tf2_aux_fit.py DATA_DIR     (DATA_DIR/aux.npz: prepare_data.py)
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
    ActivityDense(6, 0.05, name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5), loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["labels"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
