"""common.py's classifier in TF1 (graph, Session), both activations written out by hand:
tanh as 2·sigmoid(2a) − 1 and the log-softmax as z − logsumexp(z) — each layer's value is a
subtraction. GradientDescentOptimizer(0.2), three steps on one batch.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_written.py
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, NAMES, RATE, X, Y

tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(NAMES, INIT, strict=True)]
x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 3])
hidden = 2.0 * tf.sigmoid(2.0 * (tf.matmul(x, W[0]) + W[1])) - 1.0  # AT:hidden
logits = tf.matmul(hidden, W[2]) + W[3]  # AT:logits
log_probs = logits - tf.reduce_logsumexp(logits, axis=1, keepdims=True)  # AT:log_probs
loss = -tf.reduce_mean(tf.reduce_sum(y * log_probs, axis=1))  # AT:loss
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
