"""tf1_msle.py in Keras, trained eagerly: Dense(4, "tanh"), Dense(1); the squared error of
log1p written out; SGD(0.2). The TF1 weights from the saved arrays.

python tf2_msle_eager.py DATA_DIR     (DATA_DIR/msle.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "msle.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.2)  # CALL:opt

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        pred = model(saved["x"], training=True)  # CALL:pred
        loss = tf.reduce_mean(tf.square(tf.math.log1p(pred) - tf.math.log1p(saved["y"])))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
