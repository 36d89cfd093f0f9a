"""tf1_prox.py as a Keras model trained by Model.fit: Dense(1) whose kernel and bias carry a
soft-threshold constraint (Keras applies a variable's constraint right after the optimizer's
update: SGD(0.1) then the threshold lr * l1 = 0.005, TF1's proximal step). The TF1 weights
from the saved arrays.

python tf2_prox_fit.py DATA_DIR     (DATA_DIR/prox.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "prox.npz")))
NAMES = ["linear/kernel", "linear/bias"]
LR, L1 = 0.1, 0.05


class SoftThreshold(tf.keras.constraints.Constraint):
    """The L1 proximal map: shrink every weight towards 0 by `threshold`."""

    def __init__(self, threshold):
        self.threshold = threshold

    def __call__(self, w):
        return tf.sign(w) * tf.maximum(tf.abs(w) - self.threshold, 0.0)  # CALL:update


prox = SoftThreshold(LR * L1)  # CALL:opt
model = tf.keras.Sequential([
    tf.keras.Input(shape=(6,)),
    tf.keras.layers.Dense(1, kernel_constraint=prox, bias_constraint=prox, name="linear"),  # CALL:prediction
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=LR), loss="mse")  # CALL:opt CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=10, epochs=3, shuffle=False, verbose=0)  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND5_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
