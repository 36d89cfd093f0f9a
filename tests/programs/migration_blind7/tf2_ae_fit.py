"""tf1_ae.py as a Keras Sequential model trained by Model.fit on (x, x): Dense(3, "tanh"),
Dense(6, "sigmoid"); loss="binary_crossentropy"; SGD(0.3). The TF1 weights from the saved
arrays.

python tf2_ae_fit.py DATA_DIR     (DATA_DIR/ae.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "ae.npz")))
NAMES = ["enc/kernel", "enc/bias", "dec/kernel", "dec/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6,)),
    tf.keras.layers.Dense(3, activation="tanh", name="enc"),  # CALL:code
    tf.keras.layers.Dense(6, activation="sigmoid", name="dec"),  # CALL:recon
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.3), loss="binary_crossentropy")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["x"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
