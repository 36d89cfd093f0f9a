"""tf1_gated.py as a Keras Model subclass: Dense(6) value, Dense(6) gate with Keras 2's hard
sigmoid written out (Keras 3's "hard_sigmoid" is x/6 + 1/2), their product, Dense(1) score;
SquaredHinge() (it maps 0/1 labels to -1/+1 itself); SGD on PolynomialDecay(0.1, 2, 0.01,
cycle=True); the train step in tf.function. The TF1 weights set layer by layer.

python tf2_gated_fn.py DATA_DIR     (DATA_DIR/gated.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "gated.npz")))
LAYERS = ["value", "gate", "out"]


def keras2_hard_sigmoid(z):
    """tf.keras.backend.hard_sigmoid as TF 1.x had it."""
    return tf.clip_by_value(0.2 * z + 0.5, 0.0, 1.0)  # CALL:gate


class GatedNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.linear = tf.keras.layers.Dense(6, name="value")  # CALL:value
        self.gate = tf.keras.layers.Dense(6, activation=keras2_hard_sigmoid, name="gate")  # CALL:gate
        self.score = tf.keras.layers.Dense(1, name="out")  # CALL:score

    def call(self, x):
        return self.score(self.linear(x) * self.gate(x))  # CALL:gated CALL:score


model = GatedNet()
model(saved["x"][:1])
for layer in (model.linear, model.gate, model.score):
    layer.set_weights([saved[layer.name + "/kernel"], saved[layer.name + "/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.1, decay_steps=2, end_learning_rate=0.01, power=1.0, cycle=True)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.SquaredHinge()  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(4):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    weights = {}
    for layer in (model.linear, model.gate, model.score):
        kernel, bias = layer.get_weights()
        weights[layer.name + "/kernel"], weights[layer.name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
