"""tf1_ae.py in Keras, trained eagerly: Dense(3, "tanh"), a linear Dense(6) (the sigmoid
moved into the loss); BinaryCrossentropy() of the input and the decoder's output; SGD(0.3).
The TF1 weights from the saved arrays.

python tf2_ae_logits_eager.py DATA_DIR     (DATA_DIR/ae.npz: prepare_data.py)
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
    tf.keras.layers.Dense(6, name="dec"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.3)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.keras.losses.BinaryCrossentropy()(saved["x"], model(saved["x"], training=True))  # BUG:ae_logits_eager
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
