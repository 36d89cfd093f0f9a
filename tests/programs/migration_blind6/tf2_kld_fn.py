"""tf1_kld.py in Keras, the train step in tf.function: Dense(3, "softmax");
tf.keras.losses.kld (one value per example) averaged with tf.reduce_mean;
SGD(0.5). The TF1 weights from the saved arrays.

python tf2_kld_fn.py DATA_DIR     (DATA_DIR/kld.npz: prepare_data.py)
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


@tf.function
def train_step(x, t):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.keras.losses.kld(t, model(x, training=True)))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["t"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND6_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
