"""tf1_msle.py as a subclassed Keras model, the train step in tf.function: two Dense layers
(tanh, linear); the squared error of log1p written out; SGD(0.2). The TF1 weights from the
saved arrays.

python tf2_msle_fn.py DATA_DIR     (DATA_DIR/msle.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "msle.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]


class RateModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hid = tf.keras.layers.Dense(4, activation="tanh", name="hid")
        self.out = tf.keras.layers.Dense(1, name="out")

    def call(self, x):
        return self.out(self.hid(x))  # CALL:hidden CALL:pred


model = RateModel()
model(saved["x"][:1])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.2)  # CALL:opt


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x)  # CALL:pred
        loss = tf.reduce_mean(tf.square(tf.math.log1p(pred) - tf.math.log1p(y)))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
