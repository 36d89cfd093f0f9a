"""tf1_hinge.py as a Keras Sequential model trained by Model.fit: Dense(6, tanh), a Dense(1)
score, loss="hinge", Adam(amsgrad=True) with TF1's betas and epsilon. The TF1 weights from
the saved arrays.

python tf2_hinge_sigmoid_fit.py DATA_DIR     (DATA_DIR/hinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "hinge.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "score/kernel", "score/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(5,)),
    tf.keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, activation="sigmoid", name="score"),  # BUG:hinge_sigmoid_fit
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=0.05, beta_2=0.5, epsilon=1e-7, amsgrad=True),  # CALL:opt
              loss="hinge")  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND2_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
