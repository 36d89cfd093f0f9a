"""A linear embedding (5 features -> 4) trained to point along a unit target direction:
tf.nn.l2_normalize of the embedding and tf.compat.v1.losses.cosine_distance (1 - t.u, the
batch mean), plain gradient descent at 0.5 (TF1, Session). Weights from the arrays an
earlier run saved.

python tf1_cos.py DATA_DIR     (DATA_DIR/cos.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "cos.npz")))
names = ["emb/kernel", "emb/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
t = tf.compat.v1.placeholder(tf.float32, [None, 4])
z = tf.matmul(x, W["emb/kernel"]) + W["emb/bias"]  # AT:z
u = tf.nn.l2_normalize(z, axis=1)  # AT:unit
loss = tf.compat.v1.losses.cosine_distance(t, u, axis=1)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], t: saved["t"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND8_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
