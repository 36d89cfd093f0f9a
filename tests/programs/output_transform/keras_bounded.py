"""common.py's bounded regression in Keras 3: Dense(8, "relu") and an output Dense(2), the
mean squared error; SGD(0.1), three steps.

FORM VARIANT:
- eager step: a linear Dense(2); the step computes `2.0 * tf.tanh(model(x))`;
- function rescale: Dense(2, "tanh") and Rescaling(2.0) as the model's last layers, the
  step in a tf.function;
- eager scale: the mistake — the bound written `3.0 * tf.tanh(...)`.
Prints `trace {json}` last: per step the loss, the weights after the last update.

python keras_bounded.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BOUNDED_INIT, BOUNDED_RATE, BX, BY, SCALE

FORM, VARIANT = sys.argv[1], sys.argv[2]

layers = [tf.keras.Input(shape=(3,)),
          tf.keras.layers.Dense(8, activation="relu", name="hidden")]  # CALL:hidden
if VARIANT == "rescale":
    layers += [tf.keras.layers.Dense(2, activation="tanh", name="out"),  # CALL:z
               tf.keras.layers.Rescaling(SCALE, name="bound")]  # CALL:pred
else:
    layers.append(tf.keras.layers.Dense(2, name="out"))  # CALL:z
model = tf.keras.Sequential(layers)
model.set_weights(BOUNDED_INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=BOUNDED_RATE)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn


def predict(x):
    if VARIANT == "step":
        return SCALE * tf.tanh(model(x, training=True))  # CALL:z CALL:pred
    if VARIANT == "scale":
        return 3.0 * tf.tanh(model(x, training=True))  # CALL:z BUG:scale
    return model(x, training=True)  # CALL:z CALL:pred


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = mse(y, predict(x))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    return loss


if FORM == "function":
    train_step = tf.function(train_step)
losses = [float(train_step(BX, BY)) for _ in range(3)]
trace = [{"loss": value} for value in losses]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
