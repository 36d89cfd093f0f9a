"""A logistic regression over 6 features (the 'wide' part of a wide-and-deep model) trained by
FTRL-proximal at learning rate 0.5 with L1 and L2 regularization strengths of 0.01 (TF1,
Session). Weights from the arrays an earlier run saved.

python tf1_ftrl.py DATA_DIR     (DATA_DIR/ftrl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "ftrl.npz")))

x = tf.compat.v1.placeholder(tf.float32, [None, 6])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
kernel = tf.compat.v1.get_variable("linear/kernel", initializer=saved["linear/kernel"])  # AT:var
bias = tf.compat.v1.get_variable("linear/bias", initializer=saved["linear/bias"])  # AT:var

logits = tf.matmul(x, kernel) + bias  # AT:logits
loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
optimizer = tf.compat.v1.train.FtrlOptimizer(0.5, l1_regularization_strength=0.01, l2_regularization_strength=0.01)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step %d loss %.6f" % (step, value))
        losses.append(float(value))
    if os.environ.get("BLIND_TRACE"):
        final = sess.run([kernel, bias])
        print("trace", json.dumps({"loss": losses, "weights": {"linear/kernel": final[0].tolist(), "linear/bias": final[1].tolist()}}))
