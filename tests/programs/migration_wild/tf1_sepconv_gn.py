"""A separable conv (3x3 depthwise, 1x1 pointwise, SAME, + bias), group normalization written
by hand (2 groups of 2 channels, statistics per example over the group's pixels and
channels), relu, global average pool, a one-logit head; sigmoid cross-entropy; Adam with each
gradient clipped to norm 0.5 (tf.clip_by_norm) (TF1, Session).

python tf1_sepconv_gn.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(4444)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([[1.0], [0.0], [0.0], [1.0]], dtype=np.float32)
init = {
    "sep/depthwise_kernel": rng.normal(0.0, 0.5, size=(3, 3, 2, 1)).astype(np.float32),
    "sep/pointwise_kernel": rng.normal(0.0, 0.5, size=(1, 1, 2, 4)).astype(np.float32),
    "sep/bias": rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
    "gn/gamma": rng.uniform(0.8, 1.2, size=(4,)).astype(np.float32),
    "gn/beta": rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
    "head/kernel": rng.normal(0.0, 0.7, size=(4, 1)).astype(np.float32),
    "head/bias": np.zeros(1, np.float32),
}

x = tf.compat.v1.placeholder(tf.float32, [None, 5, 5, 2])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
w = {name: tf.compat.v1.get_variable(name, initializer=value) for name, value in init.items()}  # AT:var

sep = tf.nn.separable_conv2d(x, w["sep/depthwise_kernel"], w["sep/pointwise_kernel"], strides=[1, 1, 1, 1], padding="SAME") + w["sep/bias"]  # AT:sep
groups = tf.reshape(sep, [-1, 5, 5, 2, 2])  # AT:gn
mean, variance = tf.nn.moments(groups, axes=[1, 2, 4], keepdims=True)  # AT:gn
normalized = tf.reshape((groups - mean) * tf.math.rsqrt(variance + 1e-5), [-1, 5, 5, 4])  # AT:gn
gn = normalized * w["gn/gamma"] + w["gn/beta"]  # AT:gn
act = tf.nn.relu(gn)  # AT:relu
pooled = tf.reduce_mean(act, axis=[1, 2])  # AT:pool
logits = tf.matmul(pooled, w["head/kernel"]) + w["head/bias"]  # AT:logits
loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

optimizer = tf.compat.v1.train.AdamOptimizer(0.02)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss)  # AT:grads
clipped = [(tf.clip_by_norm(g, 0.5), v) for g, v in grads_and_vars]  # AT:clip
train_op = optimizer.apply_gradients(clipped)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: images, y: labels})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("WILD_TRACE"):
        final = sess.run(w)
        print("trace", json.dumps({"loss": losses, "weights": {k: a.tolist() for k, a in final.items()}}))
