"""tf1_kld.py as a Keras Sequential model trained by Model.fit: Dense(3, "softmax");
loss="kl_divergence"; SGD(0.5). The TF1 weights from the saved arrays.

python tf2_kld_fit.py DATA_DIR     (DATA_DIR/kld.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "kld.npz")))
NAMES = ["out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(3, activation="softmax", name="out"),  # CALL:probs
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5), loss="kl_divergence")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["t"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND6_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
