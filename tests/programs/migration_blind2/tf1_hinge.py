"""A binary classifier (5 -> 6 tanh -> 1 score) trained with the hinge loss on 0/1 labels
(tf.losses.hinge_loss turns them into -1/+1) by AMSGrad, written by hand as TF1 users did
before Keras had it: Adam's moments with the running maximum of the second moment in the
denominator (beta1 0.9, beta2 0.5, epsilon 1e-7, learning rate 0.05; TF1, Session). Weights
from the arrays an earlier run saved.

python tf1_hinge.py DATA_DIR     (DATA_DIR/hinge.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

LR, BETA1, BETA2, EPS = 0.05, 0.9, 0.5, 1e-7
saved = dict(np.load(os.path.join(sys.argv[1], "hinge.npz")))
names = ["hidden/kernel", "hidden/bias", "score/kernel", "score/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
hidden = tf.tanh(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
score = tf.matmul(hidden, W["score/kernel"]) + W["score/bias"]  # AT:score
loss = tf.compat.v1.losses.hinge_loss(labels=y, logits=score)  # AT:loss


def amsgrad(loss, params):
    """Adam whose denominator uses the largest second moment seen so far (Reddi et al.)."""
    grads = tf.gradients(loss, params)  # AT:grads
    t = tf.compat.v1.get_variable("amsgrad/t", initializer=0.0, trainable=False)
    t_new = tf.compat.v1.assign_add(t, 1.0)
    lr_t = LR * tf.sqrt(1.0 - tf.pow(BETA2, t_new)) / (1.0 - tf.pow(BETA1, t_new))  # AT:lr
    updates = []
    for p, g in zip(params, grads):
        name = p.op.name
        m = tf.compat.v1.get_variable(name + "/m", initializer=np.zeros(saved[name].shape, np.float32), trainable=False)
        v = tf.compat.v1.get_variable(name + "/v", initializer=np.zeros(saved[name].shape, np.float32), trainable=False)
        vhat = tf.compat.v1.get_variable(name + "/vhat", initializer=np.zeros(saved[name].shape, np.float32), trainable=False)
        m_t = m.assign(BETA1 * m + (1.0 - BETA1) * g)  # AT:opt
        v_t = v.assign(BETA2 * v + (1.0 - BETA2) * tf.square(g))  # AT:opt
        vhat_t = vhat.assign(tf.maximum(vhat, v_t))  # AT:opt
        updates.append(p.assign_sub(lr_t * m_t / (tf.sqrt(vhat_t) + EPS)))  # AT:update
    return tf.group(*updates)


train_op = amsgrad(loss, [W[n] for n in names])  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND2_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
