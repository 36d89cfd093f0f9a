"""A 1-D convolution over short sequences as TF 1.x code had it: 10 steps of 2 features,
3 filters of width 3 ('VALID'), ELU, flattened on a line of its own, a linear head; mean
squared error; plain gradient descent (0.05), three steps.

python tf1_seq.py
"""
import json
import os

import tensorflow as tf

from seq_data import arrays

tf.compat.v1.disable_eager_execution()
d = arrays()
names = ["conv/kernel", "conv/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=d[n]) for n in names}
x = tf.compat.v1.placeholder(tf.float32, [None, 10, 2])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])

conv = tf.nn.elu(tf.nn.conv1d(x, W["conv/kernel"], stride=1, padding="VALID") + W["conv/bias"])  # AT:conv
flat = tf.reshape(conv, [-1, 24])  # AT:flat
prediction = tf.matmul(flat, W["out/kernel"]) + W["out/bias"]  # AT:head
loss = tf.reduce_mean(tf.square(prediction - y))  # AT:loss
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss)  # AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: d["x"], y: d["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("SEQ_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses,
                                   "weights": {k: v.tolist() for k, v in final.items()}}))
