"""common.py's regressor in Keras 3 as a subclassed model whose `call` penalizes its own
outputs (`self.add_loss(0.1 * mean(pred**2))`); the mean squared error; SGD(RATE), three
steps. fit adds `model.losses` to the loss itself; a custom step must add them.

FORM: eager (a GradientTape step), function (the step in tf.function) or fit (the whole
batch per step, shuffle off).
VARIANT: same; factor (0.01 for the penalty's 0.1); forgot (the model adds its penalty, the
custom step minimizes the mean squared error alone: `model.losses` never added).

Prints `trace {json}` last: per step the loss the step minimizes; the weights after the last
update.

python tf2_output.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, OUTPUT_L2, RATE, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]


class Regressor(tf.keras.Model):
    """A sigmoid hidden layer and a linear head; the outputs' mean square is penalized."""

    def __init__(self, strength):
        super().__init__()
        self.strength = strength
        self.hidden = tf.keras.layers.Dense(4, activation="sigmoid", name="hidden")
        self.out = tf.keras.layers.Dense(2, name="out")

    def build(self, input_shape):
        self.hidden.build(input_shape)
        self.out.build((input_shape[0], 4))

    def call(self, inputs):
        pred = self.out(self.hidden(inputs))  # CALL:pred
        self.add_loss(self.strength * tf.reduce_mean(tf.square(pred)))  # CALL:penalty
        return pred


if VARIANT == "factor":
    model = Regressor(0.01)  # BUG:factor
else:
    model = Regressor(OUTPUT_L2)  # CALL:model
model.build((None, 3))
model.set_weights(INIT)  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt


def step(xb, yb):
    with tf.GradientTape() as tape:
        pred = model(xb, training=True)  # CALL:forward
        if VARIANT == "forgot":
            loss = tf.reduce_mean(tf.square(pred - yb))  # BUG:forgot
        else:
            loss = tf.reduce_mean(tf.square(pred - yb)) + tf.add_n(model.losses)  # CALL:total
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))  # CALL:update
    return loss


trace = []
if FORM == "fit":
    model.compile(optimizer=optimizer, loss="mse")
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
