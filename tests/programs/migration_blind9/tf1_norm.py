"""A small regression of raw features on very different scales: each feature standardized by
the training set's mean and standard deviation (computed once with numpy, as constants in the
graph), a 3 -> 4 selu layer and a linear output, the mean squared error; plain gradient
descent at 0.1 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_norm.py DATA_DIR     (DATA_DIR/norm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "norm.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var
mean = saved["x"].mean(axis=0)  # the training set's statistics
std = saved["x"].std(axis=0)

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
xn = (x - mean) / std  # AT:norm
hidden = tf.nn.selu(tf.matmul(xn, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
pred = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:pred
loss = tf.compat.v1.losses.mean_squared_error(y, pred)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND9_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
