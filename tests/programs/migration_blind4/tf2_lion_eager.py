"""tf1_lion.py in Keras, trained eagerly: Dense(6, tanh), Dense(2); LogCosh(); Keras' Lion
(0.01, beta_1=0.9, beta_2=0.99). The TF1 weights from the saved arrays.

python tf2_lion_eager.py DATA_DIR     (DATA_DIR/lion.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "lion.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]

inputs = tf.keras.Input(shape=(4,))
hidden = tf.keras.layers.Dense(6, activation="tanh", name="hidden")(inputs)  # CALL:hidden
prediction = tf.keras.layers.Dense(2, name="out")(hidden)  # CALL:prediction
model = tf.keras.Model(inputs, prediction)
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.Lion(learning_rate=0.01, beta_1=0.9, beta_2=0.99)  # CALL:opt
loss_fn = tf.keras.losses.LogCosh()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
