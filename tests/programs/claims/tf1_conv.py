"""A convolution (3x3, 2 filters, VALID), its bias and a ReLU, each filter's map averaged
(a product with a constant: a `reduce_mean` over two axes trips tfdbg's graph dumping), MSE;
TF1 graph, `MomentumOptimizer(0.1, MOMENTUM)`, 3 steps. The reference for
tf2_conv_eager.py; for tests/compare/test_hint_claims.py.

python tf1_conv.py MOMENTUM
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
momentum = float(sys.argv[1])
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(4, 5, 5, 1)).astype(np.float32))
y = tf.constant(rng.normal(size=(4, 2)).astype(np.float32))
MEAN = tf.constant(np.tile(np.eye(2, dtype=np.float32), (9, 1)) / 9)  # each filter's mean
kernel = tf.compat.v1.get_variable(
    "kernel", initializer=rng.normal(size=(3, 3, 1, 2)).astype(np.float32))
bias = tf.compat.v1.get_variable("bias", initializer=np.array([0.1, -0.2], np.float32))
h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, kernel, 1, "VALID"), bias))
loss = tf.reduce_mean(tf.square(tf.matmul(tf.reshape(h, [4, 18]), MEAN) - y))
train_op = tf.compat.v1.train.MomentumOptimizer(0.1, momentum).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train_op])
        print(f"step {step} loss {value:.6f}")
