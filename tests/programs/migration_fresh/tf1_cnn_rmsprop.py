"""conv 3x3 SAME + bias + relu, 2x2 max pool, a reshape to rows, a dense classifier; the
gradients clipped element-wise (clip_by_value) before RMSProp applies them (TF1, Session).
Weights drawn as the earlier run that saved them drew them, assigned after the initializer.

python tf1_cnn_rmsprop.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(919)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([0, 2, 1, 0], dtype=np.int32)
saved = [rng.normal(0.0, 0.4, size=(3, 3, 2, 3)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32),
         rng.normal(0.0, 0.4, size=(12, 3)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)]

x = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
conv_k = tf.compat.v1.get_variable("conv/kernel", [3, 3, 2, 3])  # AT:var
conv_b = tf.compat.v1.get_variable("conv/bias", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
fc_k = tf.compat.v1.get_variable("fc/kernel", [12, 3])  # AT:var
fc_b = tf.compat.v1.get_variable("fc/bias", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
all_vars = [conv_k, conv_b, fc_k, fc_b]
restore = tf.group(*[tf.compat.v1.assign(v, a) for v, a in zip(all_vars, saved)])  # AT:restore

conv = tf.nn.relu(tf.nn.conv2d(x, conv_k, strides=1, padding="SAME") + conv_b)  # AT:conv
pooled = tf.nn.max_pool2d(conv, ksize=2, strides=2, padding="VALID")  # AT:pool
flat = tf.reshape(pooled, [-1, 12])  # AT:flatten
logits = tf.matmul(flat, fc_k) + fc_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

optimizer = tf.compat.v1.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.0, epsilon=1e-6)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss)  # AT:grads
clipped = [(tf.clip_by_value(g, -0.05, 0.05), v) for g, v in grads_and_vars]  # AT:clip
train_op = optimizer.apply_gradients(clipped)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], {x: images, y: labels})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("FRESH_TRACE"):
        names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
        print("trace", json.dumps({"loss": losses, "weights": {
            n: v.tolist() for n, v in zip(names, sess.run(all_vars))}}))
