"""tf1_kld.py in Keras, trained eagerly: Dense(3, "softmax"); the KL divergence written out
as tf.reduce_mean(t * log(t / p)) with no axis (the mean over the classes as well as the
examples); SGD(0.5). The TF1 weights from the saved arrays.

python tf2_kld_mean_eager.py DATA_DIR     (DATA_DIR/kld.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "kld.npz")))
NAMES = ["out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(3, activation="softmax", name="out"),  # CALL:probs
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.5)  # CALL:opt
t = tf.constant(saved["t"])

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        probs = model(saved["x"], training=True)  # CALL:probs
        loss = tf.reduce_mean(t * tf.math.log(t / probs))  # BUG:kld_mean_eager
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND6_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
