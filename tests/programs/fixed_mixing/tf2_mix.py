"""common.py's smoother in Keras 3: a subclassed model whose call projects each time step
(Dense(4, use_bias=False)), multiplies by the smoothing matrix (a tf.constant the model
holds), adds its bias and applies tanh, then Dense(1); MeanSquaredError; SGD(RATE), three
steps. The TF1 weights set after a first call builds the model.

FORM: eager (a GradientTape step), function (the step in tf.function) or fit (the whole
sequence as one batch, shuffle off).
VARIANT: same (S), transposed (S.T: a look-ahead window), unnormalized (the window's sums).

Prints `trace {json}` last: per step the loss; the weights after the last update.

python tf2_mix.py FORM VARIANT
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, RATE, WINDOW, S, X, Y

FORM, VARIANT = sys.argv[1], sys.argv[2]

if VARIANT == "transposed":
    smoothing = S.T  # BUG:transposed
elif VARIANT == "unnormalized":
    smoothing = WINDOW  # BUG:unnormalized
else:
    smoothing = S  # CALL:matrix


class Smoother(tf.keras.Model):
    def __init__(self, matrix):
        super().__init__()
        self.matrix = tf.constant(matrix)
        self.proj = tf.keras.layers.Dense(4, use_bias=False, name="proj")  # CALL:proj
        self.bias = self.add_weight(shape=(4,), initializer="zeros", name="mix_bias")
        self.out = tf.keras.layers.Dense(1, name="out")  # CALL:pred

    def call(self, x):
        mixed = tf.matmul(self.matrix, self.proj(x))  # CALL:mix
        h = tf.tanh(mixed + self.bias)  # CALL:hidden
        return self.out(h)


model = Smoother(smoothing)
model(X)  # builds the layers
model.proj.set_weights([INIT[0]])  # CALL:restore
model.bias.assign(INIT[1])  # CALL:restore
model.out.set_weights([INIT[2], INIT[3]])  # CALL:restore
optimizer = tf.keras.optimizers.SGD(learning_rate=RATE)  # CALL:opt
mse = tf.keras.losses.MeanSquaredError()  # CALL:lossfn


def step(xb, yb):
    with tf.GradientTape() as tape:
        loss = mse(yb, model(xb))  # CALL:loss
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
trace[-1]["weights"] = [np.asarray(w).tolist() for w in (
    model.proj.kernel, model.bias, model.out.kernel, model.out.bias)]
print("trace " + json.dumps(trace))
