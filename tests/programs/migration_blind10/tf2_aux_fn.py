"""tf1_aux.py in Keras, the train step in tf.function: a subclassed model whose hidden layer
adds its activity penalty (0.05 times the mean square of the tanh output) with `add_loss`,
SparseCategoricalCrossentropy(from_logits=True) plus tf.add_n(model.losses); SGD(0.5). The
TF1 weights from the saved arrays, set after a first call builds the model.

python tf2_aux_fn.py DATA_DIR     (DATA_DIR/aux.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "aux.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]


class Classifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hid = tf.keras.layers.Dense(6, activation="tanh", name="hid")  # CALL:hidden
        self.out = tf.keras.layers.Dense(3, name="out")  # CALL:logits

    def call(self, x):
        hidden = self.hid(x)
        self.add_loss(0.05 * tf.reduce_mean(tf.square(hidden)))  # CALL:aux
        return self.out(hidden)


model = Classifier()
model(saved["x"][:1])  # builds the layers
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:lossfn


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x, training=True)  # CALL:forward
        loss = cross_entropy(labels, logits) + tf.add_n(model.losses)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["labels"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
