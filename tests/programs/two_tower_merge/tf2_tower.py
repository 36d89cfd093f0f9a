"""common.py's two towers as a two-input Keras 3 functional model: Dense(4, "tanh") per tower
(named as TF1's variables), merged by MERGE, BinaryCrossentropy(from_logits=True); SGD(RATE),
three steps; the TF1 weights set layer by layer.

FORM: eager (a GradientTape step), function (the step in tf.function) or fit (the whole batch
per step, shuffle off).
MERGE: dot (`Dot(axes=1)`), cosine (`Dot(axes=1, normalize=True)`), concat
(`Concatenate()([user, item])` under `Dense(1)`), swap (`Concatenate()([item, user])`: the
mistake against concat), prod (`Multiply()` under `Dense(1)`), add (`Add()`: the mistake
against prod).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_tower.py FORM MERGE
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CLICK, HEAD_INIT, RATE, TOWER_INIT, XU, XV

FORM, MERGE = sys.argv[1], sys.argv[2]

user_in = tf.keras.Input(shape=(3,), name="user_features")
item_in = tf.keras.Input(shape=(3,), name="item_features")
user = tf.keras.layers.Dense(4, activation="tanh", name="user")(user_in)  # CALL:user
item = tf.keras.layers.Dense(4, activation="tanh", name="item")(item_in)  # CALL:item
if MERGE in ("dot", "cosine"):  # one Dot: normalize=True is cosine's (the mistake vs TF1's dot)
    dot = tf.keras.layers.Dot(axes=1, normalize=MERGE == "cosine")  # CALL:score BUG:cosine
    score = dot([user, item])
elif MERGE == "concat":
    both = tf.keras.layers.Concatenate(name="merge")([user, item])  # CALL:merge
elif MERGE == "swap":
    both = tf.keras.layers.Concatenate(name="merge")([item, user])  # BUG:swap
elif MERGE == "prod":
    both = tf.keras.layers.Multiply(name="merge")([user, item])  # CALL:merge
else:
    both = tf.keras.layers.Add(name="merge")([user, item])  # BUG:add
if MERGE in ("concat", "swap", "prod", "add"):
    score = tf.keras.layers.Dense(1, name="head")(both)  # CALL:head
model = tf.keras.Model([user_in, item_in], score)
model.get_layer("user").set_weights(TOWER_INIT[:2])  # CALL:restore
model.get_layer("item").set_weights(TOWER_INIT[2:])  # CALL:restore
if MERGE in HEAD_INIT:
    model.get_layer("head").set_weights(HEAD_INIT[MERGE])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
bce = tf.keras.losses.BinaryCrossentropy(from_logits=True)  # CALL:lossfn


def step(xu, xv, click):
    with tf.GradientTape() as tape:
        logit = model([xu, xv], training=True)  # CALL:forward
        loss = bce(click, logit)  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=bce)
    hist = model.fit([XU, XV], CLICK, batch_size=8, epochs=3, shuffle=False, verbose=0)  # CALL:fit
    trace = [{"loss": float(v)} for v in hist.history["loss"]]
else:
    run = tf.function(step) if FORM == "function" else step
    for _ in range(3):
        value = run(tf.constant(XU), tf.constant(XV), tf.constant(CLICK))
        print("loss", float(value))
        trace.append({"loss": float(value)})
weights = [w for name in ("user", "item", "head") if name in [layer.name for layer in model.layers]
           for w in model.get_layer(name).get_weights()]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in weights]
print("trace " + json.dumps(trace))
