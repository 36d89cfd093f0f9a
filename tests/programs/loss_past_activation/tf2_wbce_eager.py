"""common.py's binary classifier in Keras 3, trained eagerly: Dense(4, "tanh"), a linear
Dense(1); the weighted cross-entropy tf.nn.weighted_cross_entropy_with_logits(pos_weight=
POS_W), its mean; SGD(0.2), three steps.

VARIANT: same (as TF1) or inverted (pos_weight=1 / POS_W: the positives' weight taken for
the negatives' down-weighting, a mistake).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_wbce_eager.py VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import B_INIT, POS_W, RATE, XB, YB

W_POS = 1.0 / POS_W if sys.argv[1] == "inverted" else POS_W

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:logits
])
model.set_weights(B_INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE["wbce"])  # CALL:opt
wce = tf.nn.weighted_cross_entropy_with_logits
y = tf.constant(YB)

trace = []
for step in range(3):
    with tf.GradientTape() as tape:
        logits = model(XB, training=True)  # CALL:logits
        loss = tf.reduce_mean(wce(y, logits, W_POS))  # BUG:inverted
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    print("step", step, "loss", float(loss))
    trace.append({"loss": float(loss)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
