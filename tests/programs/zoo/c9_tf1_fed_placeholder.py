"""A TF1 program fed a NaN through feed_dict: the data enters at the placeholder.

Graph mode, placeholders and Session.run. The feature matrix comes from a file where a
missing value was parsed as NaN; it is fed batch by batch. The placeholder is where the
data enters the graph.
"""
# EXPECT origin_op: Placeholder
# EXPECT cause: data|input|fed|feed
# EXPECT kind: data

import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(28)
table = rng.rand(24, 4).astype("float32")
table[17, 1] = float("nan")  # "NA" in the source file
targets = rng.rand(24, 1).astype("float32")

features = tf.compat.v1.placeholder(tf.float32, [None, 4], name="features")  # FIX
labels = tf.compat.v1.placeholder(tf.float32, [None, 1], name="labels")
glorot = tf.compat.v1.glorot_uniform_initializer
w1 = tf.compat.v1.get_variable("w1", [4, 8], initializer=glorot(seed=1))
w2 = tf.compat.v1.get_variable("w2", [8, 1], initializer=glorot(seed=2))
hidden = tf.nn.relu(tf.matmul(features, w1))
pred = tf.matmul(hidden, w2)
loss = tf.reduce_mean(tf.square(pred - labels))
train_op = tf.compat.v1.train.AdamOptimizer(0.01).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for start in range(0, 24, 8):
        feed = {features: table[start:start + 8], labels: targets[start:start + 8]}
        _, value = sess.run([train_op, loss], feed_dict=feed)
        print("batch", start, "loss", value)

tf.debugging.experimental.disable_dump_debug_info()
