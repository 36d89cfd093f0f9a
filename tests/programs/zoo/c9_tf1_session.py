"""A TF1 program: placeholders, a graph, Session.run — and log(softmax) in the loss.

Old-style code with eager execution disabled. The classifier's cross entropy is written by
hand as -sum(y * log(softmax(logits))); large logits saturate the softmax to exact zeros
and log(0) = -inf. There are no eager executions at all in this logdir.
"""
# EXPECT origin_op: Log
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(27)
x_data = rng.rand(32, 10).astype("float32") * 10.0
y_data = np.eye(3, dtype="float32")[rng.randint(0, 3, 32)]

x = tf.compat.v1.placeholder(tf.float32, [None, 10], name="x")
y = tf.compat.v1.placeholder(tf.float32, [None, 3], name="y")
w = tf.compat.v1.get_variable("w", initializer=rng.randn(10, 3).astype("float32") * 6.0)
b = tf.compat.v1.get_variable("b", initializer=np.zeros(3, "float32"))
probs = tf.nn.softmax(tf.matmul(x, w) + b)
loss = -tf.reduce_mean(tf.reduce_sum(y * tf.math.log(probs), axis=1))  # FIX
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.01).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(2):
        _, loss_value = sess.run([train_op, loss], feed_dict={x: x_data, y: y_data})
        print("step", step, "loss", loss_value)

tf.debugging.experimental.disable_dump_debug_info()
