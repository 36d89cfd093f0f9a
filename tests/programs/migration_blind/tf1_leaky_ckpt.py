"""An MLP (5 -> 7 leaky relu -> 4 classes) restored from the TF1 checkpoint an earlier run saved
(Saver.restore); the mean cross-entropy plus an activity penalty on the hidden activations
(1e-2 times the mean over the batch of each example's L1 norm); plain gradient descent at 0.2
(TF1, Session).

python tf1_leaky_ckpt.py DATA_DIR     (DATA_DIR/leaky_tf1.ckpt and leaky.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

data = np.load(os.path.join(sys.argv[1], "leaky.npz"))

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.int32, [None])
hidden_k = tf.compat.v1.get_variable("hidden/kernel", [5, 7])  # AT:var
hidden_b = tf.compat.v1.get_variable("hidden/bias", [7])  # AT:var
out_k = tf.compat.v1.get_variable("out/kernel", [7, 4])  # AT:var
out_b = tf.compat.v1.get_variable("out/bias", [4])  # AT:var

hidden = tf.nn.leaky_relu(tf.matmul(x, hidden_k) + hidden_b)  # AT:hidden
logits = tf.matmul(hidden, out_k) + out_b  # AT:logits
data_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
activity = 1e-2 * tf.reduce_mean(tf.reduce_sum(tf.abs(hidden), axis=1))  # AT:reg
loss = data_loss + activity  # AT:total
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.2).minimize(loss)  # AT:opt AT:update
saver = tf.compat.v1.train.Saver([hidden_k, hidden_b, out_k, out_b])  # AT:restore

with tf.compat.v1.Session() as sess:
    saver.restore(sess, os.path.join(sys.argv[1], "leaky_tf1.ckpt"))  # AT:restore
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: data["x"], y: data["y"]})
        print("step %d loss %.6f" % (step, value))
        losses.append(float(value))
    if os.environ.get("BLIND_TRACE"):
        names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
        final = sess.run([hidden_k, hidden_b, out_k, out_b])
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in zip(names, final)}}))
