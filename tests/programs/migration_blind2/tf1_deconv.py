"""A decoder: latent codes (2x2, 2 channels) up to 8x8 images by two stride-2 transposed
convolutions (tf.nn.conv2d_transpose, 3x3, SAME; relu between, a sigmoid at the end), the
mean squared error against the target images; plain gradient descent on a polynomial decay
from 0.5 to 0.05 over 3 steps with power 2 (TF1, Session). Weights from the arrays an
earlier run saved (kernels in conv2d_transpose's layout: height, width, out, in).

python tf1_deconv.py DATA_DIR     (DATA_DIR/deconv.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "deconv.npz")))
names = ["up1/kernel", "up1/bias", "up2/kernel", "up2/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

z = tf.compat.v1.placeholder(tf.float32, [None, 2, 2, 2])
target = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 1])
batch = tf.shape(z)[0]

up1 = tf.nn.conv2d_transpose(z, W["up1/kernel"], tf.stack([batch, 4, 4, 2]), strides=2, padding="SAME")  # AT:up1
up1 = tf.nn.relu(up1 + W["up1/bias"])  # AT:up1
up2 = tf.nn.conv2d_transpose(up1, W["up2/kernel"], tf.stack([batch, 8, 8, 1]), strides=2, padding="SAME")  # AT:up2
images = tf.sigmoid(up2 + W["up2/bias"])  # AT:up2
loss = tf.compat.v1.losses.mean_squared_error(target, images)  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.polynomial_decay(0.5, global_step, decay_steps=3, end_learning_rate=0.05, power=2.0)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, lr, _ = sess.run([loss, learning_rate, train_op], {z: saved["x"], target: saved["y"]})
        print("step %d lr %.5f loss %.6f" % (step, lr, value))
        losses.append(float(value))
    if os.environ.get("BLIND2_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
