"""common.py's classifier in Keras 3 (Dense(5, "tanh"), Dense(3)), the softmax cross-entropy
written out over three statements in `split_loss`; SGD(RATE), three steps.

FORM: eager (a GradientTape step), function (the step in tf.function) or fit (`split_loss`
the compiled loss, the whole batch per step, shuffle off).
VARIANT: same, lse (no axis: statement 1), true (the largest logit: statement 2), mean (the
batch summed: statement 3) — see common.py.

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_split.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(4,)),
    tf.keras.layers.Dense(5, activation="tanh", name="hidden"),  # CALL:hidden
    tf.keras.layers.Dense(3, name="out"),  # CALL:logits
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt


def split_loss(onehot, logits):
    if VARIANT == "lse":
        lse = tf.reduce_logsumexp(logits)  # BUG:lse
    else:
        lse = tf.reduce_logsumexp(logits, axis=1)  # CALL:lse
    if VARIANT == "true":
        true = tf.reduce_max(logits, axis=1)  # BUG:true
    else:
        true = tf.reduce_sum(onehot * logits, axis=1)  # CALL:true
    if VARIANT == "mean":
        return tf.reduce_sum(lse - true)  # BUG:mean
    return tf.reduce_mean(lse - true)  # CALL:mean


def step(xb, yb):
    with tf.GradientTape() as tape:
        logits = model(xb, training=True)  # CALL:forward
        loss = split_loss(yb, logits)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=split_loss)
    history = model.fit(X, Y, batch_size=9, epochs=3, shuffle=False, verbose=0)  # CALL:fit
    trace = [{"loss": float(v)} for v in history.history["loss"]]
else:
    run = tf.function(step) if FORM == "function" else step
    yt = tf.constant(Y)
    for _ in range(3):
        value = run(tf.constant(X), yt)
        print("loss", float(value))
        trace.append({"loss": float(value)})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
