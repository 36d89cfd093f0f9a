"""tf1_norm.py in Keras, trained eagerly: a Normalization layer adapted to the training set
(its per-feature mean and variance), Dense(4, "elu"), Dense(1), MeanSquaredError; SGD(0.1).
The TF1 weights from the saved arrays, set layer by layer (the Normalization layer keeps the
statistics it adapted).

python tf2_norm_elu_eager.py DATA_DIR     (DATA_DIR/norm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "norm.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

norm = tf.keras.layers.Normalization(axis=-1, name="norm")  # CALL:norm
norm.adapt(saved["x"])  # CALL:norm
model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    norm,
    tf.keras.layers.Dense(4, activation="elu", name="hid"),  # BUG:norm_elu_eager
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.get_layer("hid").set_weights([saved["hid/kernel"], saved["hid/bias"]])  # CALL:restore
model.get_layer("out").set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = mse(saved["y"], model(saved["x"], training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.numpy().tolist() for n, v in zip(NAMES, model.trainable_variables)}}))
