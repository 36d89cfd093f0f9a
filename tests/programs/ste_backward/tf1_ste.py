"""Quantization-aware training as TF 1.x code had it: a 4 -> 3 linear layer whose output is
rounded to steps of 0.5 (`round(2h) / 2`), the rounding's gradient replaced by the identity
with `gradient_override_map({"Round": "Identity"})` (the straight-through estimator), then a
3 -> 1 linear head; mean squared error; plain gradient descent (0.1), three steps.

python tf1_ste.py
"""
import json
import os

import tensorflow as tf

from ste_data import arrays

tf.compat.v1.disable_eager_execution()
d = arrays()
w1 = tf.compat.v1.get_variable("w1", initializer=d["w1"])
b1 = tf.compat.v1.get_variable("b1", initializer=d["b1"])
w2 = tf.compat.v1.get_variable("w2", initializer=d["w2"])
b2 = tf.compat.v1.get_variable("b2", initializer=d["b2"])
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])

h = tf.matmul(x, w1) + b1  # AT:hidden
with tf.compat.v1.get_default_graph().gradient_override_map({"Round": "Identity"}):
    q = tf.round(h * 2.0) / 2.0  # AT:ste
out = tf.matmul(q, w2) + b2  # AT:head
loss = tf.reduce_mean(tf.square(out - y))  # AT:loss
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)  # AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: d["x"], y: d["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("STE_TRACE"):
        final = sess.run({"w1": w1, "b1": b1, "w2": w2, "b2": b2})
        print("trace", json.dumps({"loss": losses,
                                   "weights": {k: v.tolist() for k, v in final.items()}}))
