"""Distilling a teacher: a 4 -> 3 softmax classifier trained toward the teacher's class
distribution under the KL divergence, written out per example and averaged; plain gradient
descent at 0.5 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_kld.py DATA_DIR     (DATA_DIR/kld.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "kld.npz")))
names = ["out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
t = tf.compat.v1.placeholder(tf.float32, [None, 3])
probs = tf.nn.softmax(tf.matmul(x, W["out/kernel"]) + W["out/bias"])  # AT:probs
loss = tf.reduce_mean(tf.reduce_sum(t * tf.math.log(t / probs), axis=1))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], t: saved["t"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND6_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
