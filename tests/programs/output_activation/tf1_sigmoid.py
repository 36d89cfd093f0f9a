"""common.py's multi-label classifier in TF1 (a Session graph): the logits and the sigmoid
on lines of their own, the loss tf.compat.v1.losses.log_loss of the probabilities; plain
gradient descent at 0.1, three steps. Prints `trace {json}` last: per step the loss, the
weights after the last update.

python tf1_sigmoid.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, NAMES, RATE, X, Y

tf.compat.v1.disable_eager_execution()

W = [tf.compat.v1.get_variable(n, initializer=a)  # AT:var
     for n, a in zip(NAMES, INIT, strict=True)]
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 3])
hidden = tf.nn.elu(tf.matmul(x, W[0]) + W[1])  # AT:hidden
logits = tf.matmul(hidden, W[2]) + W[3]  # AT:logits
probs = tf.sigmoid(logits)  # AT:probs
loss = tf.compat.v1.losses.log_loss(y, probs)  # AT:loss
train_op = tf.compat.v1.train.GradientDescentOptimizer(RATE).minimize(loss)  # AT:update AT:opt

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    trace = []
    for _ in range(3):
        value, _ = sess.run([loss, train_op], {x: X, y: Y})
        trace.append({"loss": float(value)})
    trace[-1]["weights"] = [a.tolist() for a in sess.run(W)]
print("trace " + json.dumps(trace))
