"""python_rate.py's model and data in TF1 (graph, Session): gradient descent, or momentum
with MOMENTUM > 0, on an inverse-time decay 0.5 / (1 + 0.5 * step) that the graph computes
(the rate is a recorded tensor, the optimizer's apply op reads it).

python tf1_rate.py MOMENTUM
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
momentum = float(sys.argv[1])
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 2)).astype(np.float32))
w = tf.compat.v1.get_variable("w", initializer=rng.normal(size=(4, 2)).astype(np.float32))
b = tf.compat.v1.get_variable("b", initializer=rng.normal(size=(2,)).astype(np.float32))
loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
global_step = tf.compat.v1.train.get_or_create_global_step()
lr = tf.compat.v1.train.inverse_time_decay(0.5, global_step, decay_steps=1, decay_rate=0.5)
if momentum:
    optimizer = tf.compat.v1.train.MomentumOptimizer(lr, momentum)
else:
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(lr)
train_op = optimizer.minimize(loss, global_step=global_step)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, rate, _ = sess.run([loss, lr, train_op])
        print(f"step {step} lr {rate:.4f} loss {value:.6f}")
