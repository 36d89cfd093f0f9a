"""common.py's 3-class classifier in TF1 (graph, Session): the softmax of the logits on a
line of its own; the loss written out below it — the cross-entropy from the logits, the
entropy of the softmax, the cross-entropy minus BETA times the mean entropy (a confidence
penalty); GradientDescentOptimizer(0.2), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_penalty.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BETA, M_INIT, M_NAMES, RATE, XM, YM

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(M_NAMES, M_INIT)]
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 3])
hidden = tf.tanh(tf.matmul(x, W[0]) + W[1])  # AT:hidden
logits = tf.matmul(hidden, W[2]) + W[3]  # AT:logits
probs = tf.nn.softmax(logits)  # AT:probs
ce = tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)  # AT:loss
entropy = -tf.reduce_sum(probs * tf.nn.log_softmax(logits), axis=1)  # AT:loss
loss = tf.reduce_mean(ce) - BETA * tf.reduce_mean(entropy)  # AT:loss
train = tf.compat.v1.train.GradientDescentOptimizer(RATE["penalty"]).minimize(loss)  # AT:update

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {x: XM, y: YM})
        print("step", step, "loss", value)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)]})
print("trace " + json.dumps(trace))
