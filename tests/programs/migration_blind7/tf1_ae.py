"""A tiny autoencoder: 6 intensities -> 3 (tanh) -> 6 (sigmoid), trained to reconstruct its
input under tf.compat.v1.losses.log_loss (the binary cross-entropy of the reconstruction,
averaged over every intensity); plain gradient descent at 0.3 (TF1, Session). Weights from
the arrays an earlier run saved.

python tf1_ae.py DATA_DIR     (DATA_DIR/ae.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "ae.npz")))
names = ["enc/kernel", "enc/bias", "dec/kernel", "dec/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 6])
code = tf.nn.tanh(tf.matmul(x, W["enc/kernel"]) + W["enc/bias"])  # AT:code
logits = tf.matmul(code, W["dec/kernel"]) + W["dec/bias"]  # AT:logits
recon = tf.sigmoid(logits)  # AT:recon
loss = tf.compat.v1.losses.log_loss(x, recon)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.3)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND7_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
