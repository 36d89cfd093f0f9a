"""A multi-label classifier (5 -> 6 relu -> 3 sigmoid outputs) trained with the focal loss as
RetinaNet writes it (alpha 0.25, gamma 2, averaged over labels and examples), the hidden
kernel's columns kept within a max-norm of 1.0 by tf.clip_by_norm assigned after each update;
plain gradient descent on a cosine decay with warm restarts (0.5, first period 2 steps, alpha
0.1; TF1, Session). Weights from the arrays an earlier run saved.

python tf1_maxnorm.py DATA_DIR     (DATA_DIR/maxnorm.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

ALPHA, GAMMA, MAX_NORM = 0.25, 2.0, 1.0
saved = dict(np.load(os.path.join(sys.argv[1], "maxnorm.npz")))
names = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
labels = tf.compat.v1.placeholder(tf.float32, [None, 3])
hidden = tf.nn.relu(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
logits = tf.matmul(hidden, W["logits/kernel"]) + W["logits/bias"]  # AT:logits


def focal_loss(labels, logits):
    """Lin et al. 2017: alpha_t (1 - p_t)^gamma times the cross-entropy."""
    ce = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)  # AT:loss
    p = tf.sigmoid(logits)
    p_t = labels * p + (1.0 - labels) * (1.0 - p)  # AT:loss
    alpha_t = labels * ALPHA + (1.0 - labels) * (1.0 - ALPHA)  # AT:loss
    return tf.reduce_mean(alpha_t * tf.pow(1.0 - p_t, GAMMA) * ce)  # AT:loss


loss = focal_loss(labels, logits)  # AT:loss
global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.cosine_decay_restarts(0.5, global_step, first_decay_steps=2, alpha=0.1)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update
with tf.control_dependencies([train_op]):
    kernel = W["hidden/kernel"]
    train_op = kernel.assign(tf.clip_by_norm(kernel, MAX_NORM, axes=[0]))  # AT:constraint

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, lr, _ = sess.run([loss, learning_rate, train_op], {x: saved["x"], labels: saved["y"]})
        print("step %d lr %.5f loss %.6f" % (step, lr, value))
        losses.append(float(value))
    if os.environ.get("BLIND3_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
