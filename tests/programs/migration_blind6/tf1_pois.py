"""A count regression: a log-linear rate (3 -> 1, the output is log lambda) under
tf.nn.log_poisson_loss, averaged; plain gradient descent at 0.05 (TF1, Session). Weights
from the arrays an earlier run saved.

python tf1_pois.py DATA_DIR     (DATA_DIR/pois.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "pois.npz")))
names = ["rate/kernel", "rate/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
log_rate = tf.matmul(x, W["rate/kernel"]) + W["rate/bias"]  # AT:rate
loss = tf.reduce_mean(tf.nn.log_poisson_loss(y, log_rate))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND6_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
