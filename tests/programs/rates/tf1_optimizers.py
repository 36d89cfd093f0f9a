"""A small regression net (a tanh layer of 3, a linear output of 1: its bias has one element)
trained by TF1's own optimizers in a graph, the learning rate a Python float (a recorded
`Const` the apply op reads): the reference for python_optimizers.py.

python tf1_optimizers.py OPT LR      (OPT: momentum, adam or rmsprop)
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
name, lr = sys.argv[1], float(sys.argv[2])
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 1)).astype(np.float32))
init = {"w1": rng.normal(size=(4, 3)), "b1": rng.normal(size=(3,)) * 0.1,
        "w2": rng.normal(size=(3, 1)), "b2": np.array([0.3])}
v = {k: tf.compat.v1.get_variable(k, initializer=a.astype(np.float32)) for k, a in init.items()}
h = tf.tanh(tf.matmul(x, v["w1"]) + v["b1"])
loss = tf.reduce_mean(tf.square(tf.matmul(h, v["w2"]) + v["b2"] - y))
if name == "momentum":
    optimizer = tf.compat.v1.train.MomentumOptimizer(lr, 0.9)
elif name == "adam":
    optimizer = tf.compat.v1.train.AdamOptimizer(lr, beta1=0.9, beta2=0.999, epsilon=1e-7)
else:
    optimizer = tf.compat.v1.train.RMSPropOptimizer(lr, decay=0.9, momentum=0.0, epsilon=1e-7)
train_op = optimizer.minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train_op])
        print(f"step {step} loss {value:.6f}")
