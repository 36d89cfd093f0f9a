"""tf1_grl.py as a Keras Model subclass, the train step in tf.function; the gradient
reversal written with the stop_gradient trick (stop_gradient((1 + l) x) - l x: x forward,
-l x the gradient backward, l = 0.3); BinaryCrossentropy(from_logits=True) on each head,
added; SGD(0.1). The TF1 weights set layer by layer.

python tf2_grl_fn.py DATA_DIR     (DATA_DIR/grl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "grl.npz")))
LAMBDA = 0.3


def flip_gradient(x, scale):
    return tf.stop_gradient((1.0 + scale) * x) - scale * x  # CALL:grl


class DANN(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.feature = tf.keras.layers.Dense(6, activation="tanh", name="feature")  # CALL:feature
        self.label = tf.keras.layers.Dense(1, name="label")  # CALL:label
        self.domain = tf.keras.layers.Dense(1, name="domain")  # CALL:domain

    def call(self, x):
        h = self.feature(x)  # CALL:feature
        return self.label(h), self.domain(flip_gradient(h, LAMBDA))  # CALL:label CALL:domain CALL:grl


model = DANN()
model(saved["x"][:1])
for layer in (model.feature, model.label, model.domain):
    layer.set_weights([saved[layer.name + "/kernel"], saved[layer.name + "/bias"]])  # CALL:restore

bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:loss
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt


@tf.function
def train_step(x, y, d):
    with tf.GradientTape() as tape:
        label_out, domain_out = model(x, training=True)
        loss = bce(y, label_out) + bce(d, domain_out)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"], saved["d"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND5_TRACE"):
    weights = {}
    for layer in (model.feature, model.label, model.domain):
        kernel, bias = layer.get_weights()
        weights[layer.name + "/kernel"], weights[layer.name + "/bias"] = kernel.tolist(), bias.tolist()
    print("trace", json.dumps({"loss": losses, "weights": weights}))
