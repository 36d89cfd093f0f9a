"""common.py's 3-class classifier in Keras 3, trained eagerly: Dense(5, "tanh"), a linear
Dense(3); the loss Keras' CategoricalCrossentropy(from_logits=True) minus BETA times the
mean entropy of the softmax, written by hand after the model's call; SGD(0.2), three steps.

VARIANT: same (as TF1) or plus (the entropy added: the penalty's sign flipped, a mistake).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_penalty_eager.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BETA, M_INIT, RATE, XM, YM

SIGN = 1.0 if sys.argv[1] == "plus" else -1.0

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights(M_INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE["penalty"])  # CALL:opt
cross_entropy = tf.keras.losses.CategoricalCrossentropy(from_logits=True)  # CALL:loss
y = tf.constant(YM)

trace = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(XM, training=True)  # CALL:logits
        probs = tf.nn.softmax(logits)  # CALL:probs
        entropy = -tf.reduce_sum(probs * tf.nn.log_softmax(logits), axis=1)  # CALL:loss
        loss = cross_entropy(y, logits) + SIGN * BETA * tf.reduce_mean(entropy)  # BUG:plus
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    trace.append({"loss": float(loss)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
