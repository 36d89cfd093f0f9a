"""tf1_hinge.py in Keras, trained eagerly: Dense(6, tanh), Dense(1), the hinge loss, Adam
with TF1's betas and epsilon. The TF1 weights from the saved arrays.

python tf2_hinge_amsgrad_eager.py DATA_DIR     (DATA_DIR/hinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "hinge.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "score/kernel", "score/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="score"),  # CALL:score
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

optimizer = tf.keras.optimizers.Adam(learning_rate=0.05, beta_1=0.9, beta_2=0.5, epsilon=1e-7)  # BUG:hinge_amsgrad_eager
loss_fn = tf.keras.losses.Hinge()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
