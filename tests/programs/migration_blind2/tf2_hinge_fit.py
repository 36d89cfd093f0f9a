"""tf1_hinge.py as a functional Keras model trained by Model.fit: Dense(6, tanh), Dense(1),
loss="hinge", Adam(amsgrad=True) with TF1's betas and epsilon. The TF1 weights from the
saved arrays.

python tf2_hinge_fit.py DATA_DIR     (DATA_DIR/hinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "hinge.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "score/kernel", "score/bias"]

inputs = tf.keras.Input(shape=(5,))
hidden = tf.keras.layers.Dense(6, activation="tanh", name="hidden")(inputs)  # CALL:hidden
score = tf.keras.layers.Dense(1, name="score")(hidden)  # CALL:score
model = tf.keras.Model(inputs, score)
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.05, beta_2=0.5, epsilon=1e-7, amsgrad=True),  # CALL:opt
              loss="hinge")  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
