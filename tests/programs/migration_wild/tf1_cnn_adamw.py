"""conv 3x3 SAME + bias + relu, 2x2 max pool, dropout (keep_prob fed 1.0 in this run), a
reshape to rows, a dense classifier; Adam on a staircase exponential decay, with decoupled
weight decay written by hand: each variable shrinks by lr * WD * itself after the gradients
are taken and before Adam applies them (TF1, Session). Weights drawn as the earlier run drew
them, assigned after the initializer.

python tf1_cnn_adamw.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

WD = 0.05
rng = np.random.RandomState(2222)
images = rng.normal(size=(4, 4, 4, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)
saved = [rng.normal(0.0, 0.4, size=(3, 3, 2, 4)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
         rng.normal(0.0, 0.4, size=(16, 3)).astype(np.float32),
         rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)]

x = tf.compat.v1.placeholder(tf.float32, [None, 4, 4, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
keep_prob = tf.compat.v1.placeholder_with_default(1.0, [])
conv_k = tf.compat.v1.get_variable("conv/kernel", [3, 3, 2, 4])  # AT:var
conv_b = tf.compat.v1.get_variable("conv/bias", [4], initializer=tf.compat.v1.zeros_initializer())  # AT:var
fc_k = tf.compat.v1.get_variable("fc/kernel", [16, 3])  # AT:var
fc_b = tf.compat.v1.get_variable("fc/bias", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
all_vars = [conv_k, conv_b, fc_k, fc_b]
restore = tf.group(*[tf.compat.v1.assign(v, a) for v, a in zip(all_vars, saved)])  # AT:restore

conv = tf.nn.relu(tf.nn.conv2d(x, conv_k, strides=1, padding="SAME") + conv_b)  # AT:conv
pooled = tf.nn.max_pool2d(conv, ksize=2, strides=2, padding="VALID")  # AT:pool
dropped = tf.compat.v1.nn.dropout(pooled, keep_prob=keep_prob)  # AT:dropout
flat = tf.reshape(dropped, [-1, 16])  # AT:flatten
logits = tf.matmul(flat, fc_k) + fc_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
lr = tf.compat.v1.train.exponential_decay(0.01, global_step, decay_steps=2, decay_rate=0.5, staircase=True)  # AT:lr
optimizer = tf.compat.v1.train.AdamOptimizer(lr)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss, all_vars)  # AT:grads
with tf.control_dependencies([g for g, _ in grads_and_vars]):
    decay = tf.group(*[v.assign_sub(lr * WD * v) for v in all_vars])  # AT:decay
with tf.control_dependencies([decay]):
    train_op = optimizer.apply_gradients(grads_and_vars, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], {x: images, y: labels, keep_prob: 1.0})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("WILD_TRACE"):
        names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
        print("trace", json.dumps({"loss": losses, "weights": {
            n: v.tolist() for n, v in zip(names, sess.run(all_vars))}}))
