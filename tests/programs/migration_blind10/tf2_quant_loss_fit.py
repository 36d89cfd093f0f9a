"""tf1_quant.py as a Keras Sequential model trained by Model.fit: Dense(5, "tanh"), Dense(3),
the pinball loss as a custom loss function (y_true, y_pred) given to compile; SGD on
ExponentialDecay(0.2, decay_steps=1, decay_rate=exp(-0.5)) (TF1's natural_exp_decay), the
whole set one batch. The TF1 weights from the saved arrays.

python tf2_quant_loss_fit.py DATA_DIR     (DATA_DIR/quant.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "quant.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
QUANTILES = tf.constant([0.1, 0.5, 0.9])


def pinball(y_true, y_pred):
    error = y_true - y_pred
    return tf.reduce_mean(tf.maximum(QUANTILES * error, (QUANTILES - 1.0) * error), axis=-1)  # CALL:lossfn


model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(5, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.2, decay_steps=1, decay_rate=np.exp(-0.5))  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule), loss=pinball)  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["y"], batch_size=12, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND10_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
