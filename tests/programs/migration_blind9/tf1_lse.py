"""A sequence classifier: the same 4 -> 5 tanh layer applied at each of 3 time steps (an einsum
over the features), the mean over time, a 5 -> 3 linear classifier, under
tf.compat.v1.losses.sparse_softmax_cross_entropy (the batch mean); plain gradient descent at
0.5 on two minibatches of 3 in turn, 4 steps (TF1, Session). Weights from the arrays an
earlier run saved.

python tf1_lse.py DATA_DIR     (DATA_DIR/lse.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "lse.npz")))
names = ["hid/kernel", "hid/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 3, 4])
labels = tf.compat.v1.placeholder(tf.int32, [None])
hidden = tf.tanh(tf.einsum("btf,fh->bth", x, W["hid/kernel"]) + W["hid/bias"])  # AT:hidden
pooled = tf.reduce_mean(hidden, axis=1)  # AT:pooled
logits = tf.matmul(pooled, W["out/kernel"]) + W["out/bias"]  # AT:logits
loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels, logits)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(4):
        batch = slice(3 * (step % 2), 3 * (step % 2) + 3)
        value, _ = sess.run([loss, train_op], {x: saved["x"][batch], labels: saved["labels"][batch]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND9_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
