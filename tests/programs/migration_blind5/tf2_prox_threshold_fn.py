"""tf1_prox.py in Keras, the train step in tf.function: Dense(1); the proximal step written
out after Keras SGD(0.1), the soft threshold taken as the L1 strength itself (0.05; TF1's
kernel uses lr * l1). The TF1 weights from the saved arrays.

python tf2_prox_threshold_fn.py DATA_DIR     (DATA_DIR/prox.npz: prepare_data.py)
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
    return tf.sign(v) * tf.maximum(tf.abs(v) - t, 0.0)  # CALL:update


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    for v in model.trainable_variables:
        v.assign(soft_threshold(v, L1))  # BUG:prox_threshold_fn
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
