"""tf1_pois.py in Keras, trained eagerly: Dense(1, activation="exponential") (the rate
itself) and Keras' Poisson() loss on it; SGD(0.05). The TF1 weights from the saved arrays.

python tf2_pois_eager.py DATA_DIR     (DATA_DIR/pois.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "pois.npz")))
NAMES = ["rate/kernel", "rate/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(1, activation="exponential", name="rate"),  # CALL:rate
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)  # CALL:opt
poisson = tf.keras.losses.Poisson()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = poisson(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND6_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
