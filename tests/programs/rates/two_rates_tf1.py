"""A small regression net (a tanh layer of 3, a linear output of 1) whose two layers are
trained by two optimizers (TF1, graph): the first layer's weights by OPT1, the second's by
plain gradient descent at 0.05, each `minimize(var_list=...)`. OPT1: "adagrad" (0.1, TF1's
accumulator starting at 0.1) or "adamax" (0.02; the fused `ResourceApplyAdaMax` kernel
tf.contrib's AdaMaxOptimizer ran, with β₁'s power in a variable). The reference for
two_rates_keras.py.

python two_rates_tf1.py OPT1
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
first = sys.argv[1]
rng = np.random.RandomState(1)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 1)).astype(np.float32))
init = {"w1": rng.normal(size=(4, 3)), "b1": rng.normal(size=(3,)) * 0.1,
        "w2": rng.normal(size=(3, 1)), "b2": np.array([0.3])}
v = {k: tf.compat.v1.get_variable(k, initializer=a.astype(np.float32)) for k, a in init.items()}
h = tf.tanh(tf.matmul(x, v["w1"]) + v["b1"])
loss = tf.reduce_mean(tf.square(tf.matmul(h, v["w2"]) + v["b2"] - y))
layer1, layer2 = [v["w1"], v["b1"]], [v["w2"], v["b2"]]


def adamax(lr, var_list):
    """AdaMax as the fused kernel applies it (m, u slots; β₁'s power bumped after)."""
    power = tf.compat.v1.get_variable("beta1_power", initializer=0.9, trainable=False)
    applied = []
    for g, w in zip(tf.gradients(loss, var_list), var_list, strict=True):
        m = tf.compat.v1.get_variable(w.op.name + "_m", initializer=tf.zeros(w.shape),
                                      trainable=False)
        u = tf.compat.v1.get_variable(w.op.name + "_u", initializer=tf.zeros(w.shape),
                                      trainable=False)
        applied.append(tf.raw_ops.ResourceApplyAdaMax(
            var=w.handle, m=m.handle, v=u.handle, beta1_power=power, lr=lr, beta1=0.9,
            beta2=0.999, epsilon=1e-7, grad=g))
    with tf.control_dependencies(applied):
        return power.assign(power * 0.9)


if first == "adagrad":
    step1 = tf.compat.v1.train.AdagradOptimizer(0.1).minimize(loss, var_list=layer1)
else:
    step1 = adamax(0.02, layer1)
step2 = tf.compat.v1.train.GradientDescentOptimizer(0.05).minimize(loss, var_list=layer2)
train_op = tf.group(step1, step2)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train_op])
        print(f"step {step} loss {value:.6f}")
