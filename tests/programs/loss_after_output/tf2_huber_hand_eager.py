"""common.py's regressor in Keras 3, trained eagerly: Dense(4, "tanh"), Dense(1,
"exponential"); the Huber loss written out by hand over two lines after the model's call, as
TF1 writes it; SGD(0.1), three steps.

VARIANT: same (as TF1) or nohalf (the quadratic branch without its ½: the rewrite's mistake).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_huber_hand_eager.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

HALF = 1.0 if sys.argv[1] == "nohalf" else 0.5

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, activation="exponential", name="out"),  # CALL:prediction
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
y = tf.constant(Y)

trace = []
for step in range(3):
    with tf.GradientTape() as tape:
        prediction = model(X, training=True)  # CALL:prediction
        err = tf.abs(y - prediction)  # CALL:loss
        loss = tf.reduce_mean(tf.where(err <= 1.0, HALF * tf.square(err), err - 0.5))  # BUG:nohalf
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    trace.append({"loss": float(loss)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
