"""common.py's binary classifier in TF1 (graph, Session), trained under the hinge loss: the
sigmoid of the logit on a line of its own, fetched to print the mean probability of the
positives (monitoring: the loss never reads it); the labels mapped to -1/+1 and the hinge
written out over the lines below; GradientDescentOptimizer(0.1), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_hinge.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import B_INIT, B_NAMES, RATE, XB, YB

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(B_NAMES, B_INIT)]
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.tanh(tf.matmul(x, W[0]) + W[1])  # AT:hidden
logits = tf.matmul(hidden, W[2]) + W[3]  # AT:logits
prob = tf.sigmoid(logits)  # AT:prob
signs = 2.0 * y - 1.0  # AT:loss
margins = tf.maximum(0.0, 1.0 - signs * logits)  # AT:loss
loss = tf.reduce_mean(margins)  # AT:loss
train = tf.compat.v1.train.GradientDescentOptimizer(RATE["hinge"]).minimize(loss)  # AT:update
positives = tf.reduce_sum(prob * y) / tf.reduce_sum(y)

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, mean_p, _ = sess.run([loss, positives, train], {x: XB, y: YB})
        print("step", step, "loss", value, "mean p(positives)", mean_p)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)]})
print("trace " + json.dumps(trace))
