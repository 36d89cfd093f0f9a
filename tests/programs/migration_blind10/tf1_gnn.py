"""One message-passing layer of a graph network on a small directed graph, node regression:
each node's message (x Km) is gathered along the edges' sources and summed into their
destinations (unsorted_segment_sum), added to the node's own transform, tanh; a linear
output, the mean squared error; plain gradient descent at 0.1 (TF1, Session). Weights from
the arrays an earlier run saved.

python tf1_gnn.py DATA_DIR     (DATA_DIR/gnn.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "gnn.npz")))
names = ["msg/kernel", "self/kernel", "self/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var
num_nodes = saved["x"].shape[0]

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
src = tf.compat.v1.placeholder(tf.int32, [None])
dst = tf.compat.v1.placeholder(tf.int32, [None])
messages = tf.gather(tf.matmul(x, W["msg/kernel"]), src)  # AT:msg
agg = tf.math.unsorted_segment_sum(messages, dst, num_segments=num_nodes)  # AT:agg
hidden = tf.tanh(agg + tf.matmul(x, W["self/kernel"]) + W["self/bias"])  # AT:hidden
pred = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:pred
loss = tf.compat.v1.losses.mean_squared_error(y, pred)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

feed = {x: saved["x"], y: saved["y"], src: saved["src"], dst: saved["dst"]}
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], feed)
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND10_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
