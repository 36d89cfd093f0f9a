"""common.py's classifier in Keras 3, trained eagerly with Keras' momentum written out by
hand in the user's own slot variables: `v.assign(mu * v - rate * g)`, then the weight moves
by its velocity alone (`w.assign_add(rate_one * v)`, `rate_one` a tensor 1.0) — the update
reads the gradient only through the slot, and TensorFlow reads a variable passed with a
tensor operand in its C fast path, which calls no op callback: that read is not recorded.

VARIANT: same (mu 0.8, Keras' SGD(0.05, momentum=0.8)) or mu (0.9: the rewrite's mistake).
Prints `trace {json}` last: per step the loss, the weights after the last update.

python hand_momentum.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, MU, RATE, X, Y

mu = 0.9 if sys.argv[1] == "mu" else MU  # BUG:mu

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="sigmoid", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:out
])
model.set_weights(INIT)  # CALL:restore
xent = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)  # CALL:loss
rate = tf.constant(RATE)
rate_one = tf.constant(1.0)
velocities = [tf.Variable(tf.zeros_like(w), trainable=False)  # CALL:opt
              for w in model.trainable_variables]

losses = []
for _ in range(3):
    with tf.GradientTape() as tape:
        loss = xent(Y, model(X, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    for w, v, g in zip(model.trainable_variables, velocities, grads, strict=True):
        v.assign(mu * v - rate * g)  # CALL:update
        w.assign_add(rate_one * v)  # CALL:update
    losses.append(float(loss))
trace = [{"loss": value} for value in losses]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
