"""tf1_frozen.py as a Keras Model subclass trained by a tf.function step: Dense(8, tanh) for
the feature layer and Dense(3) logits, the gradient taken of model.trainable_variables;
BinaryCrossentropy(from_logits=True); SGD on InverseTimeDecay(0.5, 1, 0.5). The TF1 weights
from the saved arrays.

python tf2_frozen_unfrozen_fn.py DATA_DIR     (DATA_DIR/frozen.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "frozen.npz")))


class MultiLabelNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(8, activation="tanh")  # BUG:frozen_unfrozen_fn
        self.out = tf.keras.layers.Dense(3)  # CALL:logits

    def call(self, x):
        return self.out(self.hidden(x))  # CALL:hidden CALL:logits


model = MultiLabelNet()
model(saved["x"][:1])  # CALL:build
model.set_weights([saved["hidden/kernel"], saved["hidden/bias"], saved["out/kernel"], saved["out/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.InverseTimeDecay(0.5, decay_steps=1, decay_rate=0.5)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.BinaryCrossentropy(from_logits=True)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)  # CALL:grads
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    loss = train_step(saved["x"], saved["y"])
    print("step %d loss %.6f" % (step, float(loss)))
    losses.append(float(loss))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
