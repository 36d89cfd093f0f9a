"""tf1_lion.py in Keras: Dense(6, tanh), Dense(2); LogCosh(); Keras' Lion given the TF1
code's betas by their order in Adam (beta_1 = 0.99 the slow average, beta_2 = 0.9); the
train step in tf.function. The TF1 weights from the saved arrays.

python tf2_lion_betas_fn.py DATA_DIR     (DATA_DIR/lion.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "lion.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(2, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.Lion(learning_rate=0.01, beta_1=0.99, beta_2=0.9)  # BUG:lion_betas_fn
loss_fn = tf.keras.losses.LogCosh()  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
