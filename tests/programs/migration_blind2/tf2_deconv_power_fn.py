"""tf1_deconv.py in Keras: two Conv2DTranspose(strides=2, padding="same") layers (relu, then
sigmoid), MeanSquaredError, SGD on a PolynomialDecay from 0.5 to 0.05 over 3 steps; the
train step in tf.function. The TF1 weights from the saved arrays.

python tf2_deconv_power_fn.py DATA_DIR     (DATA_DIR/deconv.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "deconv.npz")))
NAMES = ["up1/kernel", "up1/bias", "up2/kernel", "up2/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(2, 2, 2)),
    tf.keras.layers.Conv2DTranspose(2, 3, strides=2, padding="same", activation="relu", name="up1"),  # CALL:up1
    tf.keras.layers.Conv2DTranspose(1, 3, strides=2, padding="same", activation="sigmoid", name="up2"),  # CALL:up2
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

schedule = tf.keras.optimizers.schedules.PolynomialDecay(0.5, decay_steps=3, end_learning_rate=0.05)  # BUG:deconv_power_fn
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt
loss_fn = tf.keras.losses.MeanSquaredError()  # CALL:loss


@tf.function
def train_step(z, target):
    with tf.GradientTape() as tape:
        loss = loss_fn(target, model(z, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
