"""A small regressor (4 -> 5 swish -> 1) on targets stored as a vector (one per example, as
a CSV column loads), the mean absolute error (tf.losses.absolute_difference on the squeezed
prediction); momentum 0.9 at 0.05 (TF1, Session). Weights from the arrays an earlier run
saved.

python tf1_bcast.py DATA_DIR     (DATA_DIR/bcast.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "bcast.npz")))
names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None])
hidden = tf.nn.swish(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
prediction = tf.squeeze(tf.matmul(hidden, W["out/kernel"]) + W["out/bias"], axis=1)  # AT:prediction
loss = tf.compat.v1.losses.absolute_difference(y, prediction)  # AT:loss

optimizer = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9)  # AT:opt
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
