"""common.py's regressor in Keras 3: Dense(4), a softplus Layer of the user's own whose
gradient is given by tf.custom_gradient (eagerly, TensorFlow passes its result through an
Identity it does not record), Dense(1); the Huber loss object; SGD(0.1), three steps.

FORM: eager (a GradientTape loop), function (the step in tf.function) or fit.
VARIANT: same (TF1's training), identity (the same, the model's layers called one by one
with a tf.identity after the first: eagerly another Identity TensorFlow does not record),
delta (Huber(delta=0.5): the rewrite's mistake) or penalty
(an L2 kernel_regularizer on the output layer, which TF1 does not have).

Prints `trace {json}` last: per step the loss and the weights after the update.

python keras_huber.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, L2, RATE, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]
DELTA = 0.5 if VARIANT == "delta" else 1.0
PENALTY = tf.keras.regularizers.L2(L2) if VARIANT == "penalty" else None


@tf.custom_gradient
def softplus(a):
    def grad(upstream):
        return upstream * tf.sigmoid(a)

    return tf.nn.softplus(a), grad


class SoftPlus(tf.keras.layers.Layer):
    def call(self, a):
        return softplus(a)


model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, name="hidden"),  # CALL:hidden
    SoftPlus(name="soft"),  # CALL:soft
    tf.keras.layers.Dense(1, name="out", kernel_regularizer=PENALTY),  # BUG:penalty
])
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
huber = tf.keras.losses.Huber(delta=DELTA)  # BUG:delta
targets = Y.reshape(-1, 1)


def forward(x):
    if VARIANT == "identity":  # the layers called one by one, a tf.identity after the first
        hidden = tf.identity(model.layers[0](x))  # CALL:identity
        return model.layers[2](model.layers[1](hidden))
    return model(x, training=True)


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = huber(y, forward(x))  # CALL:loss
        if model.losses:
            loss = loss + tf.add_n(model.losses)  # CALL:reg
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables, strict=True))  # CALL:update
    return loss


losses = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss=huber)
    history = model.fit(X, targets, 8, 3, verbose=0, shuffle=False)  # CALL:fit
    losses = [float(v) for v in history.history["loss"]]
else:
    step_fn = tf.function(train_step) if FORM == "function" else train_step
    for _ in range(3):
        losses.append(float(step_fn(X, targets)))
trace = []
for step, value in enumerate(losses):
    print("step", step, "loss", value)
    trace.append({"loss": value})
trace[-1]["weights"] = [np.asarray(w).tolist() for w in model.get_weights()]
print("trace " + json.dumps(trace))
