"""tf1_chinge.py in Keras, the train step in tf.function: Dense(6, "relu"), Dense(3);
tf.keras.losses.CategoricalHinge on the one-hot labels; SGD(0.1). The TF1 weights from the
saved arrays.

python tf2_chinge_relu_fn.py DATA_DIR     (DATA_DIR/chinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "chinge.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu", name="hid"),  # BUG:chinge_relu_fn
    tf.keras.layers.Dense(3, name="out"),  # CALL:scores
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
hinge = tf.keras.losses.CategoricalHinge()  # CALL:lossfn


@tf.function
def train_step(x, labels):
    with tf.GradientTape() as tape:
        loss = hinge(tf.one_hot(labels, 3), model(x, training=True))  # CALL:loss CALL:hidden
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["labels"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
