"""tf1_norm.py as a Keras Sequential model trained by Model.fit: a Normalization layer adapted
to the training set, Dense(4, "selu"), Dense(1), loss="mse"; SGD(0.1). The TF1 weights from
the saved arrays, set layer by layer.

python tf2_norm_axis_fit.py DATA_DIR     (DATA_DIR/norm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "norm.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

norm = tf.keras.layers.Normalization(axis=None, name="norm")  # BUG:norm_axis_fit
norm.adapt(saved["x"])  # CALL:norm
model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    norm,
    tf.keras.layers.Dense(4, activation="selu", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.get_layer("hid").set_weights([saved["hid/kernel"], saved["hid/bias"]])  # CALL:restore
model.get_layer("out").set_weights([saved["out/kernel"], saved["out/bias"]])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")  # CALL:loss CALL:opt
history = model.fit(saved["x"], saved["y"], batch_size=10, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND9_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: v.numpy().tolist() for n, v in zip(NAMES, model.trainable_variables)}}))
