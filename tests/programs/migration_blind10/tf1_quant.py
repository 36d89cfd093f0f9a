"""Quantile regression: a 3 -> 5 tanh network predicting the 0.1, 0.5 and 0.9 quantiles of a
skewed target under the pinball loss max(q e, (q - 1) e) with e = y - pred, averaged over the
examples and quantiles; gradient descent from 0.2 with a natural exponential decay
(0.2 exp(-0.5 step)) (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_quant.py DATA_DIR     (DATA_DIR/quant.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "quant.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var
quantiles = tf.constant([0.1, 0.5, 0.9])

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.tanh(tf.matmul(x, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
pred = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:pred
error = y - pred  # AT:error
loss = tf.reduce_mean(tf.maximum(quantiles * error, (quantiles - 1.0) * error))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
lr = tf.compat.v1.train.natural_exp_decay(0.2, global_step, decay_steps=1, decay_rate=0.5)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(lr)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND10_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
