"""common.py's binary classifier in Keras 3, the train step in tf.function: Dense(4,
"tanh"), a linear Dense(1); Keras' Hinge() on the 0/1 labels (Keras maps them to -1/+1
itself); SGD(0.1), three steps.

VARIANT: same (as TF1) or squared (SquaredHinge(): a mistake).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_hinge_fn.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import B_INIT, RATE, XB, YB

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:logits
])
model.set_weights(B_INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE["hinge"])  # CALL:opt
if sys.argv[1] == "squared":
    hinge = tf.keras.losses.SquaredHinge()  # BUG:squared
else:
    hinge = tf.keras.losses.Hinge()  # CALL:loss


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = hinge(y, model(x, training=True))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
for step in range(3):
    value = train_step(XB, YB)
    print("step", step, "loss", float(value))
    trace.append({"loss": float(value)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
