"""tf1_frozen.py as a Keras Sequential model trained by Model.fit: Dense(8, tanh) frozen with
trainable=False, Dense(3) logits; BinaryCrossentropy(from_logits=True); SGD on
InverseTimeDecay(0.5, decay_steps=1, decay_rate=0.5). The TF1 weights from the saved arrays.

python tf2_frozen_fit.py DATA_DIR     (DATA_DIR/frozen.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "frozen.npz")))

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(8, activation="tanh", trainable=False, name="hidden"),  # CALL:frozen CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights([saved["hidden/kernel"], saved["hidden/bias"], saved["out/kernel"], saved["out/bias"]])  # CALL:restore

schedule = tf.keras.optimizers.schedules.InverseTimeDecay(0.5, decay_steps=1, decay_rate=0.5)  # CALL:lr
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=schedule),  # CALL:opt
              loss=tf.keras.losses.BinaryCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=6, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(names, model.get_weights())}}))
