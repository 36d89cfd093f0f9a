"""A depthwise 3x3 convolution (two filters per channel, no bias), batch normalization in
training with its moving averages in UPDATE_OPS (run through a control dependency of the
train op), relu, global average pooling, a dense head. Adagrad with its own initial
accumulator, a piecewise-constant learning rate on a global step (TF1, Session). The weights
come from a TF1 checkpoint, read with tf.train.load_checkpoint and assigned after the
initializer (Saver.restore cannot run under tfdbg2's instrumentation in TF 2.21).

python tf1_depthwise_bn.py DATA_DIR     (DATA_DIR/depthwise.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

MOMENTUM = 0.95
rng = np.random.RandomState(717)
images = rng.normal(size=(4, 5, 5, 2)).astype(np.float32)
labels = np.array([2, 0, 1, 1], dtype=np.int32)

x = tf.compat.v1.placeholder(tf.float32, [None, 5, 5, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
kernel = tf.compat.v1.get_variable("dw/depthwise_kernel", [3, 3, 2, 2])  # AT:var
gamma = tf.compat.v1.get_variable("bn/gamma", [4], initializer=tf.compat.v1.ones_initializer())  # AT:var
beta = tf.compat.v1.get_variable("bn/beta", [4], initializer=tf.compat.v1.zeros_initializer())  # AT:var
moving_mean = tf.compat.v1.get_variable("bn/moving_mean", [4], initializer=tf.compat.v1.zeros_initializer(), trainable=False)  # AT:var
moving_var = tf.compat.v1.get_variable("bn/moving_variance", [4], initializer=tf.compat.v1.ones_initializer(), trainable=False)  # AT:var
head_k = tf.compat.v1.get_variable("head/kernel", [4, 3])  # AT:var
head_b = tf.compat.v1.get_variable("head/bias", [3], initializer=tf.compat.v1.zeros_initializer())  # AT:var
all_vars = [kernel, gamma, beta, moving_mean, moving_var, head_k, head_b]
checkpoint = tf.train.load_checkpoint(os.path.join(sys.argv[1], "depthwise.ckpt"))
restore = [tf.compat.v1.assign(v, checkpoint.get_tensor(v.op.name)) for v in all_vars]  # AT:restore

dw = tf.nn.depthwise_conv2d(x, kernel, strides=[1, 1, 1, 1], padding="VALID")  # AT:dw
mean, variance = tf.nn.moments(dw, axes=[0, 1, 2])  # AT:moments
normed = tf.nn.batch_normalization(dw, mean, variance, beta, gamma, 1e-3)  # AT:bn
update_mean = tf.compat.v1.assign(moving_mean, moving_mean * MOMENTUM + mean * (1 - MOMENTUM))  # AT:state
update_var = tf.compat.v1.assign(moving_var, moving_var * MOMENTUM + variance * (1 - MOMENTUM))  # AT:state
tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update_mean)
tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, update_var)
act = tf.nn.relu(normed)  # AT:relu
pooled = tf.reduce_mean(act, axis=[1, 2])  # AT:pool
logits = tf.matmul(pooled, head_k) + head_b  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.piecewise_constant(global_step, [1], [0.1, 0.05])  # AT:lr
optimizer = tf.compat.v1.train.AdagradOptimizer(learning_rate, initial_accumulator_value=0.5)  # AT:opt
with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
    train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], {x: images, y: labels})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("FRESH_TRACE"):
        names = ["dw/depthwise_kernel", "bn/gamma", "bn/beta", "head/kernel", "head/bias"]
        values = sess.run([kernel, gamma, beta, head_k, head_b])
        state = sess.run([moving_mean, moving_var])
        print("trace", json.dumps({
            "loss": losses, "weights": {n: v.tolist() for n, v in zip(names, values)},
            "state": {"bn/moving_mean": state[0].tolist(), "bn/moving_variance": state[1].tolist()}}))
