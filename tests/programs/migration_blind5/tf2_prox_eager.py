"""tf1_prox.py in Keras, trained eagerly: Dense(1); the proximal step written out after
Keras SGD(0.1) (each variable soft-thresholded by lr * l1 = 0.1 * 0.05), as TF2 has no
proximal optimizer. The TF1 weights from the saved arrays.

python tf2_prox_eager.py DATA_DIR     (DATA_DIR/prox.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "prox.npz")))
NAMES = ["linear/kernel", "linear/bias"]
LR, L1 = 0.1, 0.05

model = tf.keras.Sequential([tf.keras.Input(shape=(6,)), tf.keras.layers.Dense(1, name="linear")])  # CALL:prediction
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=LR)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:loss


def soft_threshold(v, t):
    return tf.sign(v) * tf.maximum(tf.abs(v) - t, 0.0)


losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    for v in model.trainable_variables:
        v.assign(soft_threshold(v, LR * L1))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
