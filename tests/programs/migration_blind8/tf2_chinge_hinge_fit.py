"""tf1_chinge.py as a Keras Sequential model trained by Model.fit: Dense(6, "relu6"),
Dense(3); loss="hinge" on the one-hot labels; SGD(0.1). The TF1 weights from the saved
arrays.

python tf2_chinge_hinge_fit.py DATA_DIR     (DATA_DIR/chinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "chinge.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="relu6", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:scores
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="hinge")  # BUG:chinge_hinge_fit
onehot = np.eye(3, dtype=np.float32)[saved["labels"]]
history = model.fit(saved["x"], onehot, batch_size=9, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
