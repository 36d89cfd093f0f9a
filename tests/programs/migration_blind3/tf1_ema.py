"""Poisson regression of counts (4 -> 6 relu -> 1 log-rate, tf.nn.log_poisson_loss) trained by
gradient descent with momentum 0.9 at 0.05, an exponential moving average of the weights kept
for evaluation (decay 0.9, num_updates = the global step, applied after each update; TF1,
Session). Weights from the arrays an earlier run saved.

python tf1_ema.py DATA_DIR     (DATA_DIR/ema.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "ema.npz")))
names = ["hidden/kernel", "hidden/bias", "rate/kernel", "rate/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
counts = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.nn.relu(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
log_rate = tf.matmul(hidden, W["rate/kernel"]) + W["rate/bias"]  # AT:log_rate
loss = tf.reduce_mean(tf.nn.log_poisson_loss(counts, log_rate))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
optimizer = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update
ema = tf.compat.v1.train.ExponentialMovingAverage(decay=0.9, num_updates=global_step)  # AT:ema
with tf.control_dependencies([train_op]):
    train_op = ema.apply([W[n] for n in names])  # AT:state

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], counts: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND3_TRACE"):
        final = sess.run(W)
        averages = sess.run({n: ema.average(W[n]) for n in names})
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()},
                                   "state": {"ema/" + n: a.tolist() for n, a in averages.items()}}))
