"""common.py's multi-label classifier in Keras 3: Dense(6, "elu") and an output Dense(3)
with VARIANT's activation and loss; SGD(0.1), three steps.

FORM: eager (a GradientTape loop) or fit.
VARIANT: sigmoid (Dense(3, "sigmoid") and BinaryCrossentropy(): Keras' loss reads the
logits its own sigmoid cached, `_keras_logits`, and the sigmoid's output feeds nothing
recorded), logits (a linear Dense(3) and BinaryCrossentropy(from_logits=True): the sigmoid
moved into a loss told so) or probs (a linear Dense(3) and BinaryCrossentropy(): the
mistake, logits read as probabilities).
Prints `trace {json}` last: per step the loss, the weights after the last update.

python keras_sigmoid.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]
ACTIVATION = "sigmoid" if VARIANT == "sigmoid" else None

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(6, activation="elu", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, activation=ACTIVATION, name="out"),  # CALL:out
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
bce = tf.keras.losses.BinaryCrossentropy(from_logits=VARIANT == "logits")  # BUG:probs

losses = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=bce)
    history = model.fit(X, Y, 12, 3, verbose=0, shuffle=False)
    losses = [float(v) for v in history.history["loss"]]
else:
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = bce(Y, model(X, training=True))  # CALL:loss
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
        losses.append(float(loss))
trace = [{"loss": value} for value in losses]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
