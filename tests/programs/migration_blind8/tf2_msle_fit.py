"""tf1_msle.py as a Keras Sequential model trained by Model.fit: Dense(4, "tanh"), Dense(1);
the squared error of log1p as a loss function (log(p + 1), as the formula is usually
written); SGD(0.2). The TF1 weights from the saved arrays.

python tf2_msle_fit.py DATA_DIR     (DATA_DIR/msle.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "msle.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]


def log_squared_error(y, p):
    return tf.reduce_mean(tf.square(tf.math.log(p + 1.0) - tf.math.log(y + 1.0)), axis=-1)  # CALL:loss


model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.2), loss=log_squared_error)  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["y"], batch_size=10, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
