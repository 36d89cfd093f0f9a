"""tf1_ste.py in TF2, the train step in tf.function: the straight-through estimator written
as the guides show it, `h + stop_gradient(round(2h) / 2 - h)` (forward: the rounded value;
backward: the identity); tf.Variables, SGD(0.1) from Keras.

python tf2_ste_fn.py
"""
import json
import os

import tensorflow as tf

from ste_data import arrays

d = arrays()
w1, b1 = tf.Variable(d["w1"], name="w1"), tf.Variable(d["b1"], name="b1")
w2, b2 = tf.Variable(d["w2"], name="w2"), tf.Variable(d["b2"], name="b2")
variables = [w1, b1, w2, b2]
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        h = tf.matmul(x, w1) + b1
        q = h + tf.stop_gradient(tf.round(h * 2.0) / 2.0 - h)
        out = tf.matmul(q, w2) + b2
        loss = tf.reduce_mean(tf.square(out - y))
    grads = tape.gradient(loss, variables)
    optimizer.apply_gradients(zip(grads, variables))
    return loss


losses = []
for step in range(3):
    value = train_step(d["x"], d["y"])
    print("step", step, "loss", float(value))
    losses.append(float(value))
if os.environ.get("STE_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        k: v.numpy().tolist() for k, v in zip(("w1", "b1", "w2", "b2"), variables)}}))
