"""tf1_mom.py as a Keras Sequential model trained by Model.fit: Dense(4, "tanh"), Dense(1);
loss="mse"; SGD(ExponentialDecay(0.1, 1, 0.5), momentum=0.9). The TF1 weights from the saved
arrays.

python tf2_mom_keras_fit.py DATA_DIR     (DATA_DIR/mom.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "mom.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)  # CALL:lr
optimizer = tf.keras.optimizers.SGD(learning_rate=schedule, momentum=0.9)  # BUG:mom_keras_fit
model.compile(optimizer=optimizer, loss="mse")  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=12, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
