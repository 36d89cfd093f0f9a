"""common.py's embedding in TF1 (a Session graph): the rows of the embedding normalized by
hand on a line of their own (`z * rsqrt(sum(z^2))`), the cosine distance written out; plain
gradient descent at 0.5, three steps. Prints `trace {json}` last: per step the loss, the
weights after the last update.

python tf1_embed.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import EMBED_INIT, EMBED_NAMES, EMBED_RATE, ET, EX

tf.compat.v1.disable_eager_execution()

W = [tf.compat.v1.get_variable(n, initializer=a)  # AT:var
     for n, a in zip(EMBED_NAMES, EMBED_INIT, strict=True)]
x = tf.compat.v1.placeholder(tf.float32, [None, 5])
t = tf.compat.v1.placeholder(tf.float32, [None, 3])
hidden = tf.tanh(tf.matmul(x, W[0]) + W[1])  # AT:hidden
z = tf.matmul(hidden, W[2]) + W[3]  # AT:z
u = z * tf.math.rsqrt(tf.reduce_sum(tf.square(z), axis=1, keepdims=True))  # AT:unit
loss = tf.reduce_mean(1.0 - tf.reduce_sum(t * u, axis=1))  # AT:loss
train_op = tf.compat.v1.train.GradientDescentOptimizer(EMBED_RATE).minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    trace = []
    for _ in range(3):
        value, _ = sess.run([loss, train_op], {x: EX, t: ET})
        trace.append({"loss": float(value)})
    trace[-1]["weights"] = [a.tolist() for a in sess.run(W)]
print("trace " + json.dumps(trace))
