"""A small regression (3 features -> 4 tanh -> 1) of a positive rate under the squared error
of log1p (tf.compat.v1.losses.mean_squared_error of log1p(y) and log1p(pred)), plain
gradient descent at 0.2 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_msle.py DATA_DIR     (DATA_DIR/msle.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "msle.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.nn.tanh(tf.matmul(x, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
pred = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:pred
loss = tf.compat.v1.losses.mean_squared_error(tf.math.log1p(y), tf.math.log1p(pred))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.2)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND8_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
