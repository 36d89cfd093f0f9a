"""A multi-label classifier on top of a frozen feature layer: a tanh layer whose variables are
created with trainable=False (kept as the earlier run left them), a trained dense head of 3
independent sigmoid outputs; the mean sigmoid cross-entropy; gradient descent on an
inverse-time decay (0.5 / (1 + 0.5 * step)) (TF1, Session). Weights from the arrays an earlier
run saved.

python tf1_frozen.py DATA_DIR     (DATA_DIR/frozen.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "frozen.npz")))

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 3])
with tf.compat.v1.variable_scope("hidden"):
    hidden_k = tf.compat.v1.get_variable("kernel", initializer=saved["hidden/kernel"], trainable=False)  # AT:frozen
    hidden_b = tf.compat.v1.get_variable("bias", initializer=saved["hidden/bias"], trainable=False)  # AT:frozen
with tf.compat.v1.variable_scope("out"):
    out_k = tf.compat.v1.get_variable("kernel", initializer=saved["out/kernel"])  # AT:var
    out_b = tf.compat.v1.get_variable("bias", initializer=saved["out/bias"])  # AT:var

hidden = tf.tanh(tf.matmul(x, hidden_k) + hidden_b)  # AT:hidden
logits = tf.matmul(hidden, out_k) + out_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.inverse_time_decay(0.5, global_step, decay_steps=1, decay_rate=0.5)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, lr, _ = sess.run([loss, learning_rate, train_op], {x: saved["x"], y: saved["y"]})
        print("step %d lr %.4f loss %.6f" % (step, lr, value))
        losses.append(float(value))
    if os.environ.get("BLIND_TRACE"):
        names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
        final = sess.run([hidden_k, hidden_b, out_k, out_b])
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in zip(names, final)}}))
