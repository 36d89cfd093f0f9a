"""common.py's regressor in TF1 (graph, Session), its hidden sigmoid's activations under an
L1 penalty (0.02 per example's sum of |h|, averaged over the batch) added beside the mean
squared error with `tf.add_n`; GradientDescentOptimizer(RATE), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_hidden.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import HIDDEN_L1, INIT, NAMES, RATE, X, Y

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(NAMES, INIT)]
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 2])
h = tf.sigmoid(tf.matmul(x, W[0]) + W[1])  # AT:hidden
pred = tf.matmul(h, W[2]) + W[3]  # AT:pred
mse = tf.reduce_mean(tf.square(pred - y))  # AT:data
sparsity = HIDDEN_L1 * tf.reduce_mean(tf.reduce_sum(tf.abs(h), axis=1))  # AT:penalty
loss = tf.add_n([mse, sparsity])  # AT:total
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
