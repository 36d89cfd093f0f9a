"""A logistic classifier (3 features -> 1 logit) for a rare positive class, trained under the
sigmoid focal loss written out (RetinaNet's: alpha 0.25 on the positives, 0.75 on the
negatives, gamma 2), averaged over the batch; plain gradient descent at 0.5 (TF1, Session).
Weights from the arrays an earlier run saved.

python tf1_focal.py DATA_DIR     (DATA_DIR/focal.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

ALPHA, GAMMA = 0.25, 2.0

saved = dict(np.load(os.path.join(sys.argv[1], "focal.npz")))
names = ["out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 3])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
logits = tf.matmul(x, W["out/kernel"]) + W["out/bias"]  # AT:logits
prob = tf.sigmoid(logits)  # AT:prob
ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)  # AT:loss
p_t = y * prob + (1 - y) * (1 - prob)  # AT:loss
alpha_t = y * ALPHA + (1 - y) * (1 - ALPHA)  # AT:loss
loss = tf.reduce_mean(alpha_t * tf.pow(1 - p_t, GAMMA) * ce)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND7_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
