"""common.py's bounded regression in TF1 (a Session graph): the prediction `2 tanh(z)` on a
line of its own, tf.compat.v1.losses.mean_squared_error; plain gradient descent at 0.1,
three steps. Prints `trace {json}` last: per step the loss, the weights after the last
update.

python tf1_bounded.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BOUNDED_INIT, BOUNDED_NAMES, BOUNDED_RATE, BX, BY, SCALE

tf.compat.v1.disable_eager_execution()

W = [tf.compat.v1.get_variable(n, initializer=a)  # AT:var
     for n, a in zip(BOUNDED_NAMES, BOUNDED_INIT, strict=True)]
x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 2])
hidden = tf.nn.relu(tf.matmul(x, W[0]) + W[1])  # AT:hidden
z = tf.matmul(hidden, W[2]) + W[3]  # AT:z
pred = SCALE * tf.tanh(z)  # AT:pred
loss = tf.compat.v1.losses.mean_squared_error(y, pred)  # AT:loss
train_op = tf.compat.v1.train.GradientDescentOptimizer(BOUNDED_RATE).minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    trace = []
    for _ in range(3):
        value, _ = sess.run([loss, train_op], {x: BX, y: BY})
        trace.append({"loss": float(value)})
    trace[-1]["weights"] = [a.tolist() for a in sess.run(W)]
print("trace " + json.dumps(trace))
