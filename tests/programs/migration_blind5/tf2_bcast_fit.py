"""tf1_bcast.py as a Keras Sequential model trained by Model.fit: Dense(5, "swish"),
Dense(1); loss="mae" on the (8,) targets; SGD(0.05, momentum=0.9). The TF1 weights from the
saved arrays.

python tf2_bcast_fit.py DATA_DIR     (DATA_DIR/bcast.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "bcast.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="swish", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.05, momentum=0.9), loss="mae")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
