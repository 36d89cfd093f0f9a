"""tf1_norm.py in Keras, the train step in tf.function: a Normalization layer given the
training set's mean and variance (computed with numpy, as the TF1 program does), Dense(4,
"selu"), Dense(1), MeanSquaredError; SGD(0.1). The TF1 weights from the saved arrays.

python tf2_norm_fn.py DATA_DIR     (DATA_DIR/norm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "norm.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Normalization(mean=saved["x"].mean(axis=0), variance=saved["x"].var(axis=0), name="norm"),  # CALL:norm
    tf.keras.layers.Dense(4, activation="selu", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.get_layer("hid").set_weights([saved["hid/kernel"], saved["hid/bias"]])  # CALL:restore
model.get_layer("out").set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, model(x, training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(NAMES, model.trainable_variables)}}))
