"""tf1_leftover.py in Keras (tests/compare/test_leftovers.py): Dense(3, tanh), Dense(1), the
weights set by `set_weights`, three steps on the batch of common.py.

- OPT `adamax`: Adamax(0.05, epsilon=1e-8); `adam`: Adam(0.05, epsilon=1e-8);
  `adam_slow`: Adam(0.01, epsilon=1e-8) (the rate a fifth: a bug); `momentum`:
  SGD(0.1, momentum=0.9); `nesterov`: SGD(0.1, momentum=0.9, nesterov=True);
  `momentum_slow`: SGD(0.05, momentum=0.9) (the rate halved: a bug); `sgd`: SGD(0.1);
- FORM `eager` (a Python train_step) or `function` (the same in tf.function);
- AVG `none`; `assign`: the moving average (decay 0.9) kept by hand, `tf.Variable`s assigned
  `0.9 · average + 0.1 · weight` after each update (TF1's EMA subtracts instead);
  `sub`: the same written `average.assign_sub((average - weight) · 0.1)`.

Prints `trace {json}` last, as tf1_leftover.py.

python keras_leftover.py OPT FORM AVG
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATES, X, Y

OPT, FORM, AVG = sys.argv[1:4]
model = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                             tf.keras.layers.Dense(3, activation="tanh", name="hidden"),
                             tf.keras.layers.Dense(1, name="out")])
model.set_weights(INIT)
if OPT == "adamax":
    optimizer = tf.keras.optimizers.Adamax(RATES[OPT], epsilon=1e-8)  # CALL:optimizer
elif OPT == "adam":
    optimizer = tf.keras.optimizers.Adam(RATES[OPT], epsilon=1e-8)  # CALL:optimizer
elif OPT == "adam_slow":
    optimizer = tf.keras.optimizers.Adam(0.01, epsilon=1e-8)  # BUG:adam_slow
elif OPT == "momentum":
    optimizer = tf.keras.optimizers.SGD(RATES[OPT], momentum=0.9)  # CALL:optimizer
elif OPT == "nesterov":
    optimizer = tf.keras.optimizers.SGD(RATES[OPT], momentum=0.9, nesterov=True)  # CALL:optimizer
elif OPT == "momentum_slow":
    optimizer = tf.keras.optimizers.SGD(0.05, momentum=0.9)  # BUG:momentum_slow
else:
    optimizer = tf.keras.optimizers.SGD(RATES[OPT])  # CALL:optimizer
weights = [w.value for w in model.trainable_variables]  # Keras 3's tf.Variables
averages = [tf.Variable(w, trainable=False) for w in INIT] if AVG != "none" else []


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(model(x, training=True) - y))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    for average, weight in zip(averages, weights if averages else [], strict=True):
        if AVG == "assign":
            average.assign(0.9 * average + 0.1 * weight)  # CALL:average
        else:
            average.assign_sub((average - weight) * 0.1)  # CALL:average
    return loss


if FORM == "function":
    train_step = tf.function(train_step)
trace = []
for step in range(3):
    value = train_step(X, Y)
    print("step", step, "loss", float(value))
    trace.append({"loss": float(value), "weights": [np.asarray(w).tolist() for w in weights],
                  "averages": [a.numpy().tolist() for a in averages] if averages else None})
print("trace " + json.dumps(trace))
