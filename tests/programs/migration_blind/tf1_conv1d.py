"""A causal dilated convolution over time (3 taps, dilation 2: the input padded on the left by
4 steps, then a VALID convolution), relu, the mean over time, a 3-class dense head; the
cross-entropy weighted per class (class 1 counts twice, class 2 half); plain gradient descent
with a linear warmup from 0.05 to 0.2 over 2 steps, then a cosine decay to 10 % over 4 steps
(TF1, Session, 4 steps). Weights from the arrays an earlier run saved.

python tf1_conv1d.py DATA_DIR     (DATA_DIR/conv1d.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "conv1d.npz")))
CLASS_WEIGHTS = [1.0, 2.0, 0.5]

x = tf.compat.v1.placeholder(tf.float32, [None, 8, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

padded = tf.pad(x, [[0, 0], [4, 0], [0, 0]])  # AT:conv
conv = tf.nn.convolution(padded, W["conv/kernel"], padding="VALID", dilations=2) + W["conv/bias"]  # AT:conv
conv = tf.nn.relu(conv)  # AT:relu
pooled = tf.reduce_mean(conv, axis=1)  # AT:pool
logits = tf.matmul(pooled, W["fc/kernel"]) + W["fc/bias"]  # AT:logits
xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)  # AT:loss
loss = tf.reduce_mean(tf.gather(CLASS_WEIGHTS, y) * xent)  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
warmup_lr = 0.05 + (0.2 - 0.05) * tf.cast(global_step, tf.float32) / 2.0  # AT:lr
decayed_lr = tf.compat.v1.train.cosine_decay(0.2, global_step - 2, decay_steps=4, alpha=0.1)  # AT:lr
learning_rate = tf.where(global_step < 2, warmup_lr, decayed_lr)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(4):
        value, lr, _ = sess.run([loss, learning_rate, train_op], {x: saved["x"], y: saved["y"]})
        print("step %d lr %.5f loss %.6f" % (step, lr, value))
        losses.append(float(value))
    if os.environ.get("BLIND_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
