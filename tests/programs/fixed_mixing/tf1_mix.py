"""common.py's smoother in TF1 (graph, Session): the projection per time step, the causal
moving average written as an einsum over time with the constant matrix S, bias and tanh, a
linear output, the mean squared error; GradientDescentOptimizer(RATE), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_mix.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, NAMES, RATE, S, X, Y

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(NAMES, INIT)]
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
z = tf.matmul(x, W[0])  # AT:proj
smoothed = tf.einsum("ts,sf->tf", tf.constant(S), z)  # AT:mix
h = tf.tanh(smoothed + W[1])  # AT:hidden
pred = tf.matmul(h, W[2]) + W[3]  # AT:pred
loss = tf.reduce_mean(tf.square(pred - y))  # AT:loss
train = tf.compat.v1.train.GradientDescentOptimizer(RATE).minimize(loss)  # AT:update

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {x: X, y: Y})
        print("step", step, "loss", value)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)]})
print("trace " + json.dumps(trace))
