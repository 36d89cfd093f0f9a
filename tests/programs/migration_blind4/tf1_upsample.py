"""A small upscaling network for 4x4 images (conv 3x3 1 -> 2 relu, bilinear resize to 8x8,
conv 3x3 2 -> 1), the mean squared error to 8x8 targets; momentum 0.9 at 0.05 (TF1,
Session). The resize is TF1's tf.image.resize_bilinear (align_corners=False, and the pixel
grid TF 1.x had: no half-pixel centers). Weights from the arrays an earlier run saved.

python tf1_upsample.py DATA_DIR     (DATA_DIR/upsample.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "upsample.npz")))
names = ["conv1/kernel", "conv1/bias", "conv2/kernel", "conv2/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

images = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 1])
targets = tf.compat.v1.placeholder(tf.float32, [None, 8, 8, 1])
features = tf.nn.relu(tf.nn.conv2d(images, W["conv1/kernel"], strides=1, padding="SAME") + W["conv1/bias"])  # AT:conv1
upscaled = tf.compat.v1.image.resize_bilinear(features, [8, 8])  # AT:resize
output = tf.nn.conv2d(upscaled, W["conv2/kernel"], strides=1, padding="SAME") + W["conv2/bias"]  # AT:conv2
loss = tf.reduce_mean(tf.square(output - targets))  # AT:loss

optimizer = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {images: saved["x"], targets: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND4_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
