"""common.py's classifier in Keras 3, trained eagerly (a GradientTape loop) by Keras' own
SGD(0.05, momentum=0.8): `m = 0.8 m - 0.05 g; w += m`, three steps. Prints `trace {json}`
last: per step the loss, the weights after the last update.

python keras_momentum.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, MU, RATE, X, Y

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="sigmoid", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:out
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE, momentum=MU)  # AT:opt
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # AT:loss

losses = []
for _ in range(3):
    with tf.GradientTape() as tape:
        loss = xent(Y, model(X, training=True))  # AT:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # AT:update
    losses.append(float(loss))
trace = [{"loss": value} for value in losses]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
