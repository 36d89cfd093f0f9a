"""tf1_quant.py in Keras, the train step in tf.function: Dense(5, "tanh"), Dense(3), the
pinball loss written in the step; SGD on ExponentialDecay(0.2, decay_steps=1,
decay_rate=exp(-0.5)) (TF1's natural_exp_decay). The TF1 weights from the saved arrays.

python tf2_quant_sign_fn.py DATA_DIR     (DATA_DIR/quant.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "quant.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
QUANTILES = tf.constant([0.1, 0.5, 0.9])

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(5, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=1, decay_rate=np.exp(-0.5))  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule)  # CALL:opt


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x, training=True)  # CALL:forward
        error = pred - y  # BUG:quant_sign_fn
        loss = tf.reduce_mean(tf.maximum(QUANTILES * error, (QUANTILES - 1.0) * error))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
