"""tf1_prox.py as a Keras model trained by Model.fit: the L1 strength given to Dense(1) as
kernel and bias regularizers (an L1 penalty 0.05 * sum|w| added to the loss, descended by
plain SGD(0.1)), where TF1's proximal optimizer soft-thresholded after each step. The TF1
weights from the saved arrays.

python tf2_prox_penalty_fit.py DATA_DIR     (DATA_DIR/prox.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "prox.npz")))
NAMES = ["linear/kernel", "linear/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(6,)),
    tf.keras.layers.Dense(1, kernel_regularizer=tf.keras.regularizers.L1(0.05), bias_regularizer=tf.keras.regularizers.L1(0.05), name="linear"),  # BUG:prox_penalty_fit
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=0.1), loss="mse")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=10, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
