"""common.py's regressor in Keras 3: Dense(4, "tanh"), Dense(1, "exponential"); a Huber loss
object; SGD(0.1); the train step in tf.function, three steps.

VARIANT: same (delta 1, as TF1) or delta (Huber(delta=0.5): the rewrite's mistake).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_huber_fn.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

DELTA = 0.5 if sys.argv[1] == "delta" else 1.0

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, activation="exponential", name="out"),  # CALL:prediction
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
huber = tf.keras.losses.Huber(delta=DELTA)  # BUG:delta


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = huber(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
for step in range(3):
    value = float(train_step(X, Y))
    print("step", step, "loss", value)
    trace.append({"loss": value})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
