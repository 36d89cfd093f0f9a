"""tf1_pad.py in Keras as a PyTorch port has it, the train step in tf.function: one zero
row and column on every side (ZeroPadding2D(1), nn.Conv2d(padding=1)) before a "valid"
Conv2D(2, 3, strides=2, relu) — 8x8 in, still 3x3 out; Flatten, Dense(1);
MeanSquaredError; SGD(0.05). The TF1 weights from the saved arrays.

python tf2_pad_symmetric_fn.py DATA_DIR     (DATA_DIR/pad.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "pad.npz")))
NAMES = ["conv/kernel", "conv/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6, 6, 1)),
    tf.keras.layers.ZeroPadding2D(1),  # BUG:pad_symmetric_fn
    tf.keras.layers.Conv2D(2, 3, strides=2, padding="valid", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))  # CALL:loss
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
