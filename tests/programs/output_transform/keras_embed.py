"""common.py's embedding in Keras 3: Dense(6, "tanh") and Dense(3) (and, for `unit`, a
UnitNormalization layer); SGD(0.5), three steps.

FORM VARIANT:
- eager cos: `1 + CosineSimilarity(axis=1)(t, z)` — Keras normalizes inside the loss;
- eager norm: the rows normalized in the step by hand, `z / tf.norm(z, axis=1)`, and the
  cosine distance written out;
- eager axis0: the mistake — TF1's normalization copied with `axis=0`: the columns are
  normalized over the batch, not each row;
- fit unit: UnitNormalization(axis=1) as the model's last layer and the cosine distance as a
  loss function.
Prints `trace {json}` last: per step the loss, the weights after the last update.

python keras_embed.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import EMBED_INIT, EMBED_RATE, ET, EX

FORM, VARIANT = sys.argv[1], sys.argv[2]

layers = [tf.keras.Input(shape=(5,)),
          tf.keras.layers.Dense(6, activation="tanh", name="hidden"),  # CALL:hidden
          tf.keras.layers.Dense(3, name="emb")]  # CALL:z
if VARIANT == "unit":
    layers.append(tf.keras.layers.UnitNormalization(axis=1, name="unit"))  # CALL:unit
model = tf.keras.Sequential(layers)
model.set_weights(EMBED_INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=EMBED_RATE)  # CALL:opt
cosine = tf.keras.losses.CosineSimilarity(axis=1)  # CALL:lossfn


def cosine_distance(t, u):
    return 1.0 - tf.reduce_sum(t * u, axis=-1)  # CALL:loss


def step_loss(z):
    if VARIANT == "cos":
        return 1.0 + cosine(ET, z)  # CALL:loss
    if VARIANT == "norm":
        u = z / tf.norm(z, axis=1, keepdims=True)  # CALL:unit
    else:
        u = z * tf.math.rsqrt(tf.reduce_sum(tf.square(z), axis=0, keepdims=True))  # BUG:axis0
    return tf.reduce_mean(1.0 - tf.reduce_sum(ET * u, axis=1))  # CALL:loss


losses = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=cosine_distance)
    history = model.fit(EX, ET, 10, 3, verbose=0, shuffle=False)
    losses = [float(v) for v in history.history["loss"]]
else:
    for _ in range(3):
        with tf.GradientTape() as tape:
            loss = step_loss(model(EX, training=True))  # CALL:z CALL:loss
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
        losses.append(float(loss))
trace = [{"loss": value} for value in losses]
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
