"""tf1_pad.py in Keras, trained eagerly: the padding written out before a "valid"
Conv2D(2, 3, strides=2, relu), placed top/left (ZeroPadding2D(((1, 0), (1, 0)))) where TF's
'SAME' puts it bottom/right; Flatten, Dense(1); MeanSquaredError; SGD(0.05). The TF1
weights from the saved arrays.

python tf2_pad_topleft_eager.py DATA_DIR     (DATA_DIR/pad.npz: prepare_data.py)
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
    tf.keras.layers.ZeroPadding2D(((1, 0), (1, 0))),  # BUG:pad_topleft_eager
    tf.keras.layers.Conv2D(2, 3, strides=2, padding="valid", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.05)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(saved["y"], model(saved["x"], training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
