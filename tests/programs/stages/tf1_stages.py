"""TF1 (Session) programs for tests/compare/test_layer_stages.py (models in stages_data.py).

python tf1_stages.py pool|shrink|cnn
"""
import sys

import tensorflow as tf

from stages_data import cnn_data, pool_data, shrink_data

tf.compat.v1.disable_eager_execution()
MODE = sys.argv[1]

if MODE == "pool":
    data, labels, saved = pool_data()
    W = {n: tf.compat.v1.get_variable(n, initializer=v) for n, v in saved.items()}
    x = tf.compat.v1.placeholder(tf.float32, [None, 6, 3])
    y = tf.compat.v1.placeholder(tf.int32, [None])
    frames = tf.nn.relu(tf.matmul(x, W["frame/kernel"]) + W["frame/bias"])  # AT:frame
    pooled = tf.reduce_max(frames, axis=1)  # AT:pool
    logits = tf.matmul(pooled, W["out/kernel"]) + W["out/bias"]  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    rate = 0.2
elif MODE == "cnn":
    data, labels, saved = cnn_data()
    W = {n: tf.compat.v1.get_variable(n, initializer=v) for n, v in saved.items()}
    x = tf.compat.v1.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.compat.v1.placeholder(tf.float32, [None, 1])
    features = tf.nn.relu(tf.nn.conv2d(x, W["conv1/kernel"], strides=1, padding="SAME") + W["conv1/bias"])  # AT:conv1
    pooled = tf.nn.max_pool2d(features, 2, 2, "VALID")  # AT:pool
    flat = tf.reshape(pooled, [-1, 27])
    output = tf.matmul(flat, W["out/kernel"]) + W["out/bias"]  # AT:out
    loss = tf.reduce_mean(tf.square(output - y))
    rate = 0.1
else:
    data, labels, saved = shrink_data()
    W = {n: tf.compat.v1.get_variable(n, initializer=v) for n, v in saved.items()}
    x = tf.compat.v1.placeholder(tf.float32, [None, 6, 6, 1])
    y = tf.compat.v1.placeholder(tf.float32, [None, 1])
    features = tf.nn.relu(tf.nn.conv2d(x, W["conv1/kernel"], strides=1, padding="SAME") + W["conv1/bias"])  # AT:conv1
    small = tf.compat.v1.image.resize_bilinear(features, [4, 4])  # AT:resize
    flat = tf.reshape(small, [-1, 32])
    output = tf.matmul(flat, W["out/kernel"]) + W["out/bias"]  # AT:out
    loss = tf.reduce_mean(tf.square(output - y))
    rate = 0.1

train_op = tf.compat.v1.train.GradientDescentOptimizer(rate).minimize(loss)
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(2):
        value, _ = sess.run([loss, train_op], {x: data, y: labels})
        print("step", step, "loss", value)
