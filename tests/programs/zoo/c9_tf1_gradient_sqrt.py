"""A TF1 program whose NaN is born in the gradients: sqrt of a zero variance.

Graph mode with Session.run and tf.compat.v1.train optimizers. The loss adds a penalty on
the standard deviation of the predictions, written sqrt(mean((p - mean(p))²)). At the
start all predictions are equal (zero-initialised weights), the variance is exactly 0 and
the gradient of sqrt at 0 is infinite: gradients/…/Sqrt_grad is where NaN is born.
"""
# EXPECT origin_op: SqrtGrad
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(39)
x_data = rng.rand(32, 5).astype("float32")
y_data = rng.rand(32, 1).astype("float32")

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
w = tf.compat.v1.get_variable("w", [5, 1], initializer=tf.compat.v1.zeros_initializer())
pred = tf.matmul(x, w)
mse = tf.reduce_mean(tf.square(pred - y))
spread = tf.sqrt(tf.reduce_mean(tf.square(pred - tf.reduce_mean(pred))))  # FIX
loss = mse - 0.1 * spread  # reward diverse predictions
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(2):
        _, value = sess.run([train_op, loss], feed_dict={x: x_data, y: y_data})
        print("step", step, "loss", value)

tf.debugging.experimental.disable_dump_debug_info()
