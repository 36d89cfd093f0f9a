"""A 3-class scorer (4 features -> 6 relu6 -> 3 scores) under the categorical hinge written
out (max(0, the best wrong score - the true score + 1), the batch mean; the integer labels
one-hot encoded in the graph), plain gradient descent at 0.1 (TF1, Session). Weights from
the arrays an earlier run saved.

python tf1_chinge.py DATA_DIR     (DATA_DIR/chinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "chinge.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
labels = tf.compat.v1.placeholder(tf.int32, [None])
hidden = tf.nn.relu6(tf.matmul(x, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
scores = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:scores
onehot = tf.one_hot(labels, 3)
pos = tf.reduce_sum(onehot * scores, axis=1)  # AT:loss
neg = tf.reduce_max((1.0 - onehot) * scores, axis=1)  # AT:loss
loss = tf.reduce_mean(tf.maximum(0.0, neg - pos + 1.0))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], labels: saved["labels"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND8_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
