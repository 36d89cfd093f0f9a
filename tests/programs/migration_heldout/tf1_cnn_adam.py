"""A small CNN (conv 3x3 SAME -> relu -> max pool 2 -> reshape -> dense), Adam, TF1 Session.

python tf1_cnn_adam.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(2024)
images = rng.normal(size=(4, 6, 6, 2)).astype(np.float32)
classes = np.array([1, 0, 2, 1], dtype=np.int32)
conv_k = rng.normal(0.0, 0.35, size=(3, 3, 2, 4)).astype(np.float32)
conv_b = rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32)
fc_k = rng.normal(0.0, 0.25, size=(36, 3)).astype(np.float32)
fc_b = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)

inputs = tf.compat.v1.placeholder(tf.float32, [None, 6, 6, 2])
targets = tf.compat.v1.placeholder(tf.int32, [None])

conv_kernel = tf.compat.v1.get_variable("conv/kernel", initializer=conv_k)  # AT:var
conv_bias = tf.compat.v1.get_variable("conv/bias", initializer=conv_b)  # AT:var
fc_kernel = tf.compat.v1.get_variable("fc/kernel", initializer=fc_k)  # AT:var
fc_bias = tf.compat.v1.get_variable("fc/bias", initializer=fc_b)  # AT:var

net = tf.nn.conv2d(inputs, conv_kernel, strides=1, padding="SAME")  # AT:conv
net = tf.nn.relu(tf.nn.bias_add(net, conv_bias))  # AT:conv
net = tf.nn.max_pool2d(net, ksize=2, strides=2, padding="VALID")  # AT:pool
net = tf.reshape(net, [-1, 36])  # AT:flatten
logits = tf.matmul(net, fc_kernel) + fc_bias  # AT:logits
xent = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=targets, logits=logits)  # AT:loss
loss = tf.reduce_mean(xent)  # AT:loss

train_op = tf.compat.v1.train.AdamOptimizer(learning_rate=0.01, beta1=0.9, beta2=0.99, epsilon=1e-7).minimize(loss)  # AT:opt AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        _, current = sess.run([train_op, loss], feed_dict={inputs: images, targets: classes})
        print("step %d loss %.6f" % (step, current))
        losses.append(float(current))
    if os.environ.get("HELDOUT_TRACE"):
        values = sess.run([conv_kernel, conv_bias, fc_kernel, fc_bias])
        names = ["conv/kernel", "conv/bias", "fc/kernel", "fc/bias"]
        print("trace", json.dumps({"loss": losses,
                                   "weights": {n: v.tolist() for n, v in zip(names, values)}}))
