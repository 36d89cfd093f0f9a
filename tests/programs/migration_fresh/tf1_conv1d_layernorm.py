"""A 1-D convolution over short sequences, layer normalization over the channels (written out
with tf.nn.moments), a reshape to rows and a dense classifier. Plain gradient descent with an
exponentially decaying, staircase learning rate on a global step; the gradients clipped by
their global norm before they are applied (TF1, Session).

python tf1_conv1d_layernorm.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(616)
sequences = rng.normal(size=(4, 6, 3)).astype(np.float32)
labels = np.array([1, 0, 0, 1], dtype=np.int32)
saved = [rng.normal(0.0, 0.5, size=(3, 3, 4)), rng.normal(0.0, 0.1, size=(4,)),
         rng.uniform(0.8, 1.2, size=(4,)), rng.normal(0.0, 0.1, size=(4,)),
         rng.normal(0.0, 0.4, size=(24, 2)), np.zeros(2)]
saved = [a.astype(np.float32) for a in saved]

x = tf.compat.v1.placeholder(tf.float32, [None, 6, 3])
y = tf.compat.v1.placeholder(tf.int32, [None])
with tf.compat.v1.variable_scope("conv"):
    conv_k = tf.compat.v1.get_variable("kernel", [3, 3, 4])  # AT:var
    conv_b = tf.compat.v1.get_variable("bias", [4], initializer=tf.compat.v1.zeros_initializer())  # AT:var
with tf.compat.v1.variable_scope("ln"):
    gamma = tf.compat.v1.get_variable("gamma", [4], initializer=tf.compat.v1.ones_initializer())  # AT:var
    beta = tf.compat.v1.get_variable("beta", [4], initializer=tf.compat.v1.zeros_initializer())  # AT:var
with tf.compat.v1.variable_scope("out"):
    out_k = tf.compat.v1.get_variable("kernel", [24, 2])  # AT:var
    out_b = tf.compat.v1.get_variable("bias", [2], initializer=tf.compat.v1.zeros_initializer())  # AT:var
all_vars = [conv_k, conv_b, gamma, beta, out_k, out_b]
restore = [tf.compat.v1.assign(v, a) for v, a in zip(all_vars, saved)]  # AT:restore

conv = tf.nn.relu(tf.nn.conv1d(x, conv_k, stride=1, padding="SAME") + conv_b)  # AT:conv
mean, variance = tf.nn.moments(conv, axes=[-1], keepdims=True)  # AT:ln
normed = (conv - mean) * tf.math.rsqrt(variance + 1e-5) * gamma + beta  # AT:ln
flat = tf.reshape(normed, [-1, 24])  # AT:flatten
logits = tf.matmul(flat, out_k) + out_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.exponential_decay(0.2, global_step, decay_steps=2, decay_rate=0.5, staircase=True)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss)  # AT:grads
grads, variables = zip(*grads_and_vars)
clipped, global_norm = tf.clip_by_global_norm(grads, 0.5)  # AT:clip
train_op = optimizer.apply_gradients(zip(clipped, variables), global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(4):
        loss_value, norm, _ = sess.run([loss, global_norm, train_op], {x: sequences, y: labels})
        print("step", step, "loss", loss_value, "gradient norm", norm)
        losses.append(float(loss_value))
    if os.environ.get("FRESH_TRACE"):
        names = ["conv/kernel", "conv/bias", "ln/gamma", "ln/beta", "out/kernel", "out/bias"]
        print("trace", json.dumps({"loss": losses, "weights": {
            n: v.tolist() for n, v in zip(names, sess.run(all_vars))}}))
