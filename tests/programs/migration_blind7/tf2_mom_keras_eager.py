"""tf1_mom.py in Keras, trained eagerly: Dense(4, "tanh"), Dense(1); MeanSquaredError();
SGD(ExponentialDecay(0.1, 1, 0.5), momentum=0.9). The TF1 weights from the saved arrays.

python tf2_mom_keras_eager.py DATA_DIR     (DATA_DIR/mom.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "mom.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
mse = tf.keras.losses.MeanSquaredError()  # CALL:loss
schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9)  # BUG:mom_keras_eager

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
