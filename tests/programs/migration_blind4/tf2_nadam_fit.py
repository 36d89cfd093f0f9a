"""tf1_nadam.py as a Keras Sequential model trained by Model.fit: Dense(8), PReLU, Dense(1)
logit; BinaryCrossentropy(from_logits=True) with class_weight={1: 3.0} (the positives
weighted 3, the negatives 1, as pos_weight did); contrib's Nadam as a Keras Adam whose
update_step takes the Nesterov step. The TF1 weights from the saved arrays.

python tf2_nadam_fit.py DATA_DIR     (DATA_DIR/nadam.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf
from tensorflow import keras

saved = dict(np.load(os.path.join(sys.argv[1], "nadam.npz")))
NAMES = ["hidden/kernel", "hidden/bias", "prelu/alpha", "out/kernel", "out/bias"]


class ContribNadam(keras.optimizers.Adam):
    """tf.contrib.opt.NadamOptimizer: Adam whose step uses b1 m + (1 - b1) g (Nesterov)."""

    def update_step(self, gradient, variable, learning_rate):
        lr = tf.cast(learning_rate, variable.dtype)
        step = tf.cast(self.iterations + 1, variable.dtype)
        m = self._momentums[self._get_variable_index(variable)]
        v = self._velocities[self._get_variable_index(variable)]
        alpha = lr * tf.sqrt(1.0 - self.beta_2 ** step) / (1.0 - self.beta_1 ** step)  # CALL:lr
        self.assign(m, self.beta_1 * m + (1.0 - self.beta_1) * gradient)
        self.assign(v, self.beta_2 * v + (1.0 - self.beta_2) * tf.square(gradient))
        self.assign_sub(variable, alpha * (self.beta_1 * m + (1.0 - self.beta_1) * gradient) / (tf.sqrt(v) + self.epsilon))  # CALL:update


model = keras.Sequential([
    keras.Input(shape=(6,)),
    keras.layers.Dense(8, name="hidden"),  # CALL:hidden
    keras.layers.PReLU(name="prelu"),  # CALL:prelu
    keras.layers.Dense(1, name="out"),  # CALL:logits
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore

model.compile(optimizer=ContribNadam(learning_rate=0.01, epsilon=1e-8),  # CALL:opt
              loss=keras.losses.BinaryCrossentropy(from_logits=True))  # CALL:loss
history = model.fit(saved["x"], saved["y"], batch_size=8, epochs=3, shuffle=False, verbose=0, class_weight={0: 1.0, 1: 3.0})  # CALL:fit
for step, value in enumerate(history.history["loss"]):
    print("step %d loss %.6f" % (step, value))
if os.environ.get("BLIND4_TRACE"):
    print("trace", json.dumps({"loss": history.history["loss"], "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
