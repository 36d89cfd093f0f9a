"""common.py's two towers in TF1 (graph, Session), merged by MERGE: dot (the dot product,
`reduce_sum(u * v)`), cos (each tower's output normalized with l2_normalize on a line of its
own, then the dot product), concat (`concat([u, v])` under a linear head) or prod (`u * v`
under a linear head); sigmoid_cross_entropy; GradientDescentOptimizer(RATE), three steps.

Prints `trace {json}` last: per step the loss and the weights after the update.

python tf1_tower.py MERGE
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import CLICK, HEAD, RATE, TOWERS, XU, XV, initial

MERGE = sys.argv[1]
tf.compat.v1.disable_eager_execution()
W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(TOWERS + HEAD, initial(MERGE))]
xu = tf.compat.v1.placeholder(tf.float32, [None, 3])
xv = tf.compat.v1.placeholder(tf.float32, [None, 3])
click = tf.compat.v1.placeholder(tf.float32, [None, 1])
user = tf.tanh(tf.matmul(xu, W[0]) + W[1])  # AT:user
item = tf.tanh(tf.matmul(xv, W[2]) + W[3])  # AT:item
if MERGE == "dot":
    score = tf.reduce_sum(user * item, axis=1, keepdims=True)  # AT:score
elif MERGE == "cos":
    user_n = tf.nn.l2_normalize(user, axis=1)  # AT:unorm
    item_n = tf.nn.l2_normalize(item, axis=1)  # AT:vnorm
    score = tf.reduce_sum(user_n * item_n, axis=1, keepdims=True)  # AT:score
elif MERGE == "concat":
    both = tf.concat([user, item], axis=1)  # AT:merge
    score = tf.matmul(both, W[4]) + W[5]  # AT:score
else:
    both = user * item  # AT:merge
    score = tf.matmul(both, W[4]) + W[5]  # AT:score
loss = tf.compat.v1.losses.sigmoid_cross_entropy(click, score)  # AT:loss
train = tf.compat.v1.train.GradientDescentOptimizer(RATE).minimize(loss)  # AT:update

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {xu: XU, xv: XV, click: CLICK})
        print("step", step, "loss", value)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)]})
print("trace " + json.dumps(trace))
