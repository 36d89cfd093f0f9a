"""tf1_nadam.py in Keras, trained eagerly: Dense(8), PReLU, Dense(1) logit, the weighted
cross-entropy (pos_weight 3); contrib's NadamOptimizer replaced by Keras' Nadam with TF1's
epsilon. The TF1 weights from the saved arrays.

python tf2_nadam_keras_eager.py DATA_DIR     (DATA_DIR/nadam.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "nadam.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "prelu/alpha", "out/kernel", "out/bias"]

inputs = tf.keras.Input(shape=(6,))
hidden = tf.keras.layers.Dense(8, name="hidden")(inputs)  # CALL:hidden
hidden = tf.keras.layers.PReLU(name="prelu")(hidden)  # CALL:prelu
logits = tf.keras.layers.Dense(1, name="out")(hidden)  # CALL:logits
model = tf.keras.Model(inputs, logits)
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.Nadam(learning_rate=0.01, epsilon=1e-8)  # BUG:nadam_keras_eager

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(labels=saved["y"], logits=model(saved["x"], training=True), pos_weight=3.0))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
