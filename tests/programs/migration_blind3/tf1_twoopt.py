"""A classifier fitted to target distributions by the KL divergence (written out: sum p (log p -
log softmax z), averaged), with two optimizers: Adam (0.01) for the encoder (4 -> 5 tanh) and
momentum 0.9 at 0.1 for the head (5 -> 3), each minimize given its part's variables (TF1,
Session). Weights from the arrays an earlier run saved.

python tf1_twoopt.py DATA_DIR     (DATA_DIR/twoopt.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "twoopt.npz")))
names = ["encoder/kernel", "encoder/bias", "head/kernel", "head/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
target = tf.compat.v1.placeholder(tf.float32, [None, 3])
encoded = tf.tanh(tf.matmul(x, W["encoder/kernel"]) + W["encoder/bias"])  # AT:encoder
logits = tf.matmul(encoded, W["head/kernel"]) + W["head/bias"]  # AT:head
kl = tf.reduce_mean(tf.reduce_sum(target * (tf.math.log(target) - tf.nn.log_softmax(logits)), axis=1))  # AT:loss

encoder_optimizer = tf.compat.v1.train.AdamOptimizer(0.01)  # AT:opt
head_optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)  # AT:opt
train_op = tf.group(
    encoder_optimizer.minimize(kl, var_list=[W["encoder/kernel"], W["encoder/bias"]]),  # AT:update
    head_optimizer.minimize(kl, var_list=[W["head/kernel"], W["head/bias"]]))  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([kl, train_op], {x: saved["x"], target: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND3_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
