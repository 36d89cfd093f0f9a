"""tf1_bcast.py in Keras, the train step in tf.function: Dense(5, "swish"), Dense(1); the
mean absolute error written out as tf.reduce_mean(tf.abs(y - model(x))) on the (8,) targets
and the (8, 1) predictions (broadcast to an (8, 8) table of every target against every
prediction); SGD(0.05, momentum=0.9). The TF1 weights from the saved arrays.

python tf2_bcast_fn.py DATA_DIR     (DATA_DIR/bcast.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "bcast.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="swish", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9)  # CALL:opt


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.abs(y - model(x, training=True)))  # BUG:bcast_fn
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
