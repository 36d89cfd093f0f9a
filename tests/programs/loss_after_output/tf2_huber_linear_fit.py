"""common.py's regressor as a Keras 3 Sequential model trained by Model.fit: Dense(4, "tanh")
and a linear Dense(1) (the exponential left out: the rewrite's mistake); the loss named
"huber" in compile; SGD(0.1); three epochs of one batch of 8.

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_huber_linear_fit.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # BUG:linear
])
model.set_weights(INIT)  # CALL:restore
model.compile(optimizer=tf.keras.optimizers.SGD(learning_rate=RATE), loss="huber")  # CALL:loss
history = model.fit(X, Y, batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit

trace = []
for step, value in enumerate(history.history["loss"]):
    print("step", step, "loss", value)
    trace.append({"loss": float(value)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
