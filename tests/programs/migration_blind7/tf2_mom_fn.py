"""tf1_mom.py in Keras, the train step in tf.function, TF1's momentum written out by hand:
accum = 0.9 accum + g; var -= lr accum, the rate from Keras' ExponentialDecay(0.1, 1, 0.5)
at a step counter kept in a tf.Variable (TF1's global step). The TF1 weights from the saved
arrays.

python tf2_mom_fn.py DATA_DIR     (DATA_DIR/mom.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

saved = dict(np.load(os.path.join(sys.argv[1], "mom.npz")))
NAMES = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]

model = tf.keras.Sequential([
    tf.keras.Input(shape=(3,)),
    tf.keras.layers.Dense(4, activation="tanh", name="hid"),  # CALL:hidden
    tf.keras.layers.Dense(1, name="out"),  # CALL:pred
])
model.set_weights([saved[n] for n in NAMES])  # CALL:restore
schedule = tf.keras.optimizers.schedules.ExponentialDecay(0.1, decay_steps=1, decay_rate=0.5)  # CALL:lr
accums = [tf.Variable(tf.zeros_like(v), trainable=False) for v in model.trainable_variables]  # CALL:opt
global_step = tf.Variable(0, dtype=tf.int64, trainable=False)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(y - model(x, training=True)))  # CALL:loss
    grads = tape.gradient(loss, model.trainable_variables)
    lr = schedule(global_step)  # CALL:lr
    for var, accum, grad in zip(model.trainable_variables, accums, grads):
        accum.assign(0.9 * accum + grad)  # CALL:update
        var.assign_sub(lr * accum)  # CALL:update
    global_step.assign_add(1)
    return loss


losses = []
for step in range(3):
    value = train_step(saved["x"], saved["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("BLIND7_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        n: w.tolist() for n, w in zip(NAMES, model.get_weights())}}))
