"""A 3-class classifier whose hidden activations carry a penalty (0.05 times their mean
square, added to the cross-entropy: it keeps the tanh units out of saturation): 4 -> 6 tanh
-> 3 logits, sparse softmax cross-entropy; plain gradient descent at 0.5 (TF1, Session).
Weights from the arrays an earlier run saved.

python tf1_aux.py DATA_DIR     (DATA_DIR/aux.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "aux.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
labels = tf.compat.v1.placeholder(tf.int32, [None])
hidden = tf.tanh(tf.matmul(x, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
logits = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:logits
data_loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)  # AT:data
activity = 0.05 * tf.reduce_mean(tf.square(hidden))  # AT:aux
loss = data_loss + activity  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], labels: saved["labels"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND10_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
