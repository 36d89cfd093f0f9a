"""tf1_quant.py in Keras, trained eagerly: Dense(5, "tanh"), Dense(3); the pinball loss
written with tf.where (q e where the residual is positive, (q - 1) e elsewhere); SGD on
ExponentialDecay(0.2, decay_steps=1, decay_rate=exp(-0.5)), which is TF1's
natural_exp_decay(0.2, step, 1, 0.5). The TF1 weights from the saved arrays.

python tf2_quant_where_eager.py DATA_DIR     (DATA_DIR/quant.npz: prepare_data.py)
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


def pinball(y, pred):
    error = y - pred
    return tf.reduce_mean(tf.where(error >= 0, QUANTILES * error, (QUANTILES - 1.0) * error))  # CALL:lossfn


losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        loss = pinball(saved["y"], model(saved["x"]))  # CALL:loss CALL:forward
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
