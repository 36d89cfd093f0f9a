"""tf1_cos.py as a Keras Sequential model trained by Model.fit: Dense(4), UnitNormalization
(TF1's l2_normalize over each row) and TF1's cosine distance as a loss function; SGD(0.5).
The TF1 weights from the saved arrays.

python tf2_cos_unit_fit.py DATA_DIR     (DATA_DIR/cos.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "cos.npz")))
NAMES = ["emb/kernel", "emb/bias"]


def cosine_distance(t, u):
    return 1.0 - tf.reduce_sum(t * u, axis=-1)  # CALL:loss


model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(4, name="emb"),  # CALL:z
    tf.keras.layers.UnitNormalization(axis=1, name="unit"),  # CALL:unit
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.5), loss=cosine_distance)  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["t"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND8_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
