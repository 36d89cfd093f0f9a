"""common.py's regressor in Keras 3: Dense(4, "sigmoid", activity_regularizer=L1(...)),
Dense(2), the mean squared error; SGD(RATE), three steps. Keras divides a layer's activity
penalty by the batch size and keeps it in `model.losses`: fit adds it to the loss itself, a
custom step adds `tf.add_n(model.losses)`.

FORM: eager (a GradientTape step), function (the step in tf.function) or fit (the whole
batch per step, shuffle off).
VARIANT: same (L1(0.02), TF1's penalty), factor (L1(0.02 / batch): the batch size divided
out a second time), none (the layer built without its activity regularizer).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_hidden.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HIDDEN_L1, INIT, RATE, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]

if VARIANT == "factor":
    sparsity = tf.keras.regularizers.L1(HIDDEN_L1 / len(X))  # BUG:factor
elif VARIANT == "none":
    sparsity = None  # BUG:none
else:
    sparsity = tf.keras.regularizers.L1(HIDDEN_L1)  # CALL:reg
model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="sigmoid", activity_regularizer=sparsity,  # CALL:hidden
                          name="hidden"),
    tf.keras.layers.Dense(2, name="out"),  # CALL:pred
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn


def step(xb, yb):
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)  # CALL:forward
        loss = mse(yb, pred)  # CALL:data
        if model.losses:
            loss = loss + tf.add_n(model.losses)  # CALL:total
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=mse)
    history = model.fit(X, Y, batch_size=len(X), epochs=3, shuffle=False, verbose=0)  # CALL:fit
    trace = [{"loss": float(v)} for v in history.history["loss"]]
else:
    run = tf.function(step) if FORM == "function" else step
    for _ in range(3):
        value = run(tf.constant(X), tf.constant(Y))
        print("loss", float(value))
        trace.append({"loss": float(value)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
