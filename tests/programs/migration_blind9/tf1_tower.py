"""Two towers scoring a (user, item) pair: each embeds its own 3 features into 4 (tanh, its
own weights), the dot product of the two embeddings is the logit of a click, under
tf.compat.v1.losses.sigmoid_cross_entropy (the batch mean); plain gradient descent at 0.5
(TF1, Session). Weights from the arrays an earlier run saved.

python tf1_tower.py DATA_DIR     (DATA_DIR/tower.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "tower.npz")))
names = ["user/kernel", "user/bias", "item/kernel", "item/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

xu = tf.compat.v1.placeholder(tf.float32, [None, 3])
xv = tf.compat.v1.placeholder(tf.float32, [None, 3])
click = tf.compat.v1.placeholder(tf.float32, [None, 1])
user = tf.tanh(tf.matmul(xu, W["user/kernel"]) + W["user/bias"])  # AT:user
item = tf.tanh(tf.matmul(xv, W["item/kernel"]) + W["item/bias"])  # AT:item
score = tf.reduce_sum(user * item, axis=1, keepdims=True)  # AT:score
loss = tf.compat.v1.losses.sigmoid_cross_entropy(click, score)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {xu: saved["xu"], xv: saved["xv"], click: saved["click"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND9_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
