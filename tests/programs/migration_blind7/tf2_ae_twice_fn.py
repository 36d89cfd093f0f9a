"""tf1_ae.py in Keras, the train step in tf.function: Dense(3, "tanh"), Dense(6, "sigmoid");
BinaryCrossentropy(from_logits=True) on the sigmoid's output (the reconstruction, not its
logits); SGD(0.3). The TF1 weights from the saved arrays.

python tf2_ae_twice_fn.py DATA_DIR     (DATA_DIR/ae.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "ae.npz")))
NAMES = ["enc/kernel", "enc/bias", "dec/kernel", "dec/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6,)),
    tf.keras.layers.Dense(3, activation="tanh", name="enc"),  # CALL:code
    tf.keras.layers.Dense(6, activation="sigmoid", name="dec"),  # CALL:recon
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.3)  # CALL:opt


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.keras.losses.BinaryCrossentropy(from_logits=True)(x, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
