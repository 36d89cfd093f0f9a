"""A strided convolution (3x3, stride 2, 'SAME': 6x6 -> 3x3, 1 -> 2 channels, relu),
flattened to 18, a linear output; the mean squared error; plain gradient descent (0.05;
TF1, Session). TF's 'SAME' pads a stride-2 3x3 window over 6 pixels with one zero row and
column, both at the bottom/right. Weights from the arrays an earlier run saved.

python tf1_pad.py DATA_DIR     (DATA_DIR/pad.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "pad.npz")))
names = ["conv/kernel", "conv/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 6, 6, 1])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
conv = tf.nn.relu(tf.nn.conv2d(x, W["conv/kernel"], strides=[1, 2, 2, 1], padding="SAME") + W["conv/bias"])  # AT:conv
flat = tf.reshape(conv, [-1, 18])
prediction = tf.matmul(flat, W["out/kernel"]) + W["out/bias"]  # AT:prediction
loss = tf.reduce_mean(tf.square(prediction - y))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND5_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
