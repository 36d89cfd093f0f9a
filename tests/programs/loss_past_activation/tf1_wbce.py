"""common.py's binary classifier in TF1 (graph, Session), trained under a binary
cross-entropy weighting the positives POS_W times, written by hand: the sigmoid of the logit
on a line of its own, the weighted cross-entropy of it and its mean below;
GradientDescentOptimizer(0.2), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_wbce.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import B_INIT, B_NAMES, POS_W, RATE, XB, YB

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(B_NAMES, B_INIT)]
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.tanh(tf.matmul(x, W[0]) + W[1])  # AT:hidden
logits = tf.matmul(hidden, W[2]) + W[3]  # AT:logits
p = tf.sigmoid(logits)  # AT:prob
bce = -(POS_W * y * tf.math.log(p) + (1.0 - y) * tf.math.log(1.0 - p))  # AT:loss
loss = tf.reduce_mean(bce)  # AT:loss
train = tf.compat.v1.train.GradientDescentOptimizer(RATE["wbce"]).minimize(loss)  # AT:update

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {x: XB, y: YB})
        print("step", step, "loss", value)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)]})
print("trace " + json.dumps(trace))
