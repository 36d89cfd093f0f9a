"""tf1_pad.py as a Keras Sequential model trained by Model.fit: Conv2D(2, 3, strides=2,
padding="same", relu) — Keras' "same" is TF's 'SAME' — Flatten, Dense(1); loss="mse";
SGD(0.05). The TF1 weights from the saved arrays.

python tf2_pad_fit.py DATA_DIR     (DATA_DIR/pad.npz: prepare_data.py)
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
    tf.keras.layers.Conv2D(2, 3, strides=2, padding="same", activation="relu", name="conv"),  # CALL:conv
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05), loss="mse")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=4, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
