"""tf1_twoopt.py in Keras, trained eagerly: Dense(5, tanh) encoder, Dense(3) head,
KLDivergence on the head's softmax; Adam (0.01, TF1's epsilon) for the encoder's weights and
SGD with momentum 0.9 at 0.1 for the head's, one tape, two apply_gradients. The TF1 weights
from the saved arrays.

python tf2_twoopt_eager.py DATA_DIR     (DATA_DIR/twoopt.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "twoopt.npz")))
NAMES = ["encoder/kernel", "encoder/bias", "head/kernel", "head/bias"]

encoder = tf.keras.layers.Dense(5, activation="tanh", name="encoder")  # CALL:encoder
head = tf.keras.layers.Dense(3, name="head")  # CALL:head
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), encoder, head])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

encoder_optimizer = tf.keras.optimizers.Adam(learning_rate=0.01, epsilon=1e-8)  # CALL:opt
head_optimizer = tf.keras.optimizers.SGD(learning_rate=0.1, momentum=0.9)  # CALL:opt
kl = tf.keras.losses.KLDivergence()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = kl(saved["y"], tf.nn.softmax(model(saved["x"], training=True)))  # CALL:loss
    encoder_grads, head_grads = tape.gradient(value, [encoder.trainable_variables, head.trainable_variables])  # CALL:grads
    encoder_optimizer.apply_gradients(zip(encoder_grads, encoder.trainable_variables))  # CALL:update
    head_optimizer.apply_gradients(zip(head_grads, head.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND3_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
