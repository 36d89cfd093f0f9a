"""tf1_pois.py in Keras, the train step in tf.function: a linear Dense(1) (the log-rate)
and tf.nn.log_poisson_loss(compute_full_loss=True) on it, averaged; SGD(0.05). The TF1 weights from the saved
arrays.

python tf2_pois_full_fn.py DATA_DIR     (DATA_DIR/pois.npz: prepare_data.py)
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
    tf.keras.layers.Dense(1, name="rate"),  # CALL:rate
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)  # CALL:opt


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.log_poisson_loss(y, model(x, training=True), compute_full_loss=True))  # BUG:pois_full_fn
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND6_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
