"""tf1_deconv.py in Keras, trained eagerly: a functional model of two
Conv2DTranspose(strides=2, padding="same") layers (relu, then sigmoid), MeanSquaredError, SGD
on PolynomialDecay(0.5, 3, 0.05, power=2.0). The TF1 weights from the saved arrays, each
kernel given to its layer in Keras' convolution layout.

python tf2_deconv_layout_eager.py DATA_DIR     (DATA_DIR/deconv.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "deconv.npz")))
NAMES = ["up1/kernel", "up1/bias", "up2/kernel", "up2/bias"]

latent = tf.keras.Input(shape=(2, 2, 2))
up1 = tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same", activation="relu", name="up1")  # CALL:up1 CALL:build
up2 = tf.keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid", name="up2")  # CALL:up2
model = tf.keras.Model(latent, up2(up1(latent)))  # CALL:build
up1.set_weights([np.transpose(saved["up1/kernel"], (0, 1, 3, 2)), saved["up1/bias"]])  # BUG:deconv_layout_eager
up2.set_weights([saved["up2/kernel"], saved["up2/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.5, decay_steps=3, end_learning_rate=0.05, power=2.0)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.MeanSquaredError()  # CALL:loss

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        value = loss_fn(saved["y"], model(saved["x"], training=True))  # CALL:loss CALL:forward
    grads = tape.gradient(value, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
