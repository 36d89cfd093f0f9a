"""A sparse linear regression (6 -> 1, the mean squared error) trained by TF1's proximal
gradient descent with an L1 strength (ProximalGradientDescentOptimizer(0.1,
l1_regularization_strength=0.05)): each step a gradient step, then the soft threshold
lr * l1 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_prox.py DATA_DIR     (DATA_DIR/prox.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "prox.npz")))
names = ["linear/kernel", "linear/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 6])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
prediction = tf.matmul(x, W["linear/kernel"]) + W["linear/bias"]  # AT:prediction
loss = tf.reduce_mean(tf.square(prediction - y))  # AT:loss

optimizer = tf.compat.v1.train.ProximalGradientDescentOptimizer(0.1, l1_regularization_strength=0.05)  # AT:opt
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
