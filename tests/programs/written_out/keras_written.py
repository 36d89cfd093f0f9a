"""tf1_written.py in Keras 3: Dense(4, tanh) — one op, `Tanh` — and Dense(3) logits, the weights
by `set_weights`; the log-softmax and the negative log-likelihood in one op,
`tf.nn.softmax_cross_entropy_with_logits` (the same mean loss); SGD(0.2).

- FORM `eager` (a Python train_step) or `function` (the same in tf.function);
- ACT `tanh`; `sigmoid`: the hidden layer's activation mistaken (a bug).

Prints `trace {json}` last, as tf1_written.py.

python keras_written.py FORM ACT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

FORM, ACT = sys.argv[1:3]
if ACT == "tanh":
    hidden = tf.keras.layers.Dense(4, activation="tanh", name="hidden")  # CALL:hidden
else:
    hidden = tf.keras.layers.Dense(4, activation="sigmoid", name="hidden")  # BUG:sigmoid
model = tf.keras.Sequential([tf.keras.Input(shape=(5,)), hidden,
                             tf.keras.layers.Dense(3, name="out")])  # CALL:logits
model.set_weights(INIT)
optimizer = tf.keras.optimizers.SGD(RATE)  # CALL:optimizer


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(  # CALL:loss
            labels=y, logits=model(x, training=True)))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    return loss


if FORM == "function":
    train_step = tf.function(train_step)
trace = []
for step in range(3):
    value = train_step(tf.constant(X), tf.constant(Y))
    print("step", step, "loss", float(value))
    trace.append({"loss": float(value),
                  "weights": [np.asarray(w).tolist() for w in model.get_weights()]})
print("trace " + json.dumps(trace))
