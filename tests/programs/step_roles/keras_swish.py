"""tf1_swish.py in Keras: Dense(3), a Swish-β layer of its own (its one weight lb, β = exp(lb),
shaped like the Dense bias), Dense(1); the TF1 starting weights set. FORM "eager":
Keras' Adam in an eager loop. FORM "function": Adam written out in a tf.function, the step
taken as lr_t · (m / (√v + ε)) with the bias-corrected lr_t computed in the step; VARIANT
"uncorrected" forgets the first moment's correction 1/(1 − β₁ᵗ) in lr_t (a migration
mistake), "ok" computes it as TF1's kernel does.

python keras_swish.py FORM VARIANT
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BETA_1, BETA_2, EPSILON, LR, STEPS, data

form, variant = sys.argv[1], sys.argv[2]
x_value, y_value, init = data()
NAMES = ("w1", "b1", "lb", "w2", "b2")


class SwishBeta(tf.keras.layers.Layer):
    """x·σ(β·x) with β = exp(lb), one per unit."""

    def build(self, input_shape):
        self.lb = self.add_weight(name="lb", shape=(input_shape[-1],))

    def call(self, inputs):
        return inputs * tf.sigmoid(tf.exp(self.lb) * inputs)


model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), tf.keras.layers.Dense(3),
                             SwishBeta(), tf.keras.layers.Dense(1)])
model.set_weights([init[n] for n in NAMES])
variables = model.trainable_variables


def loss_fn():
    return tf.reduce_mean(tf.square(model(x_value) - y_value))


if form == "eager":
    optimizer = tf.keras.optimizers.Adam(LR, beta_1=BETA_1, beta_2=BETA_2, epsilon=EPSILON)

    def train_step():
        with tf.GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables, strict=True))
        return loss
else:
    slots_m = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]
    slots_v = [tf.Variable(tf.zeros_like(v), trainable=False) for v in variables]
    t = tf.Variable(0.0, trainable=False)
    corrected = variant != "uncorrected"

    @tf.function
    def train_step():
        with tf.GradientTape() as tape:
            loss = loss_fn()
        grads = tape.gradient(loss, variables)
        t.assign_add(1.0)
        lr_t = LR * tf.sqrt(1.0 - BETA_2 ** t)  # LINE:lr_t
        if corrected:
            lr_t = lr_t / (1.0 - BETA_1 ** t)  # LINE:lr_t
        for var, g, m, v in zip(variables, grads, slots_m, slots_v, strict=True):
            m.assign(BETA_1 * m + (1.0 - BETA_1) * g)
            v.assign(BETA_2 * v + (1.0 - BETA_2) * tf.square(g))
            var.assign_sub(lr_t * (m / (tf.sqrt(v) + EPSILON)))  # LINE:keras_update
        return loss

for step in range(STEPS):
    print("step", step, "loss", repr(float(train_step())))
print("final", json.dumps({n: w.numpy().tolist() for n, w in zip(NAMES, variables, strict=True)}))
