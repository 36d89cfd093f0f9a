"""tf1_lse.py as a subclassed Keras model, the train step in tf.function: Dense(5, "tanh")
applied to the (batch, time, features) input directly (Dense works on the last axis), the
mean over time, Dense(3); tf.nn.sparse_softmax_cross_entropy_with_logits, the batch mean;
SGD(0.5) on two minibatches of 3 in turn, 4 steps. The TF1 weights from the saved arrays.

python tf2_lse_dense_fn.py DATA_DIR     (DATA_DIR/lse.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "lse.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]


class SequenceClassifier(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hid = tf.keras.layers.Dense(5, activation="tanh", name="hid")  # CALL:hidden
        self.out = tf.keras.layers.Dense(3, name="out")  # CALL:logits

    def call(self, x):
        pooled = tf.reduce_mean(self.hid(x), axis=1)  # CALL:hidden CALL:pooled
        return self.out(pooled)  # CALL:logits


model = SequenceClassifier()
model(saved["x"][:1])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        logits = model(x)  # CALL:forward
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(4):
    batch = slice(3 * (step % 2), 3 * (step % 2) + 3)
    value = train_step(saved["x"][batch], saved["labels"][batch])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
