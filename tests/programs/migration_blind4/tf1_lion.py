"""A small regressor (4 -> 6 tanh -> 2), the log-cosh loss written out
(e + softplus(-2e) - log 2, averaged), trained by Lion (Chen et al. 2023) written out with
assign ops, as a research codebase on TF 1.x had it: the step is lr sign(b1 m + (1-b1) g),
then m = b2 m + (1-b2) g (lr 0.01, b1 0.9, b2 0.99; TF1, Session). Weights from the arrays an
earlier run saved.

python tf1_lion.py DATA_DIR     (DATA_DIR/lion.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

LR, BETA_1, BETA_2 = 0.01, 0.9, 0.99
saved = dict(np.load(os.path.join(sys.argv[1], "lion.npz")))
names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 2])
hidden = tf.tanh(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
prediction = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:prediction
error = prediction - y
loss = tf.reduce_mean(error + tf.nn.softplus(-2.0 * error) - np.log(2.0))  # AT:loss


def lion_update(loss, variables):
    """One Lion step for every variable; its momentum m a non-trainable variable beside it."""
    grads = tf.gradients(loss, variables)  # AT:grads
    steps = []
    for var, grad in zip(variables, grads):
        m = tf.compat.v1.get_variable(var.op.name + "/lion_m", shape=var.shape, initializer=tf.zeros_initializer(), trainable=False)
        direction = tf.sign(BETA_1 * m + (1.0 - BETA_1) * grad)  # AT:update
        step = var.assign_sub(LR * direction)  # AT:update
        with tf.control_dependencies([step]):
            steps.append(m.assign(BETA_2 * m + (1.0 - BETA_2) * grad))  # AT:update
    return tf.group(*steps)


train_op = lion_update(loss, [W[n] for n in names])  # AT:opt AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND4_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
