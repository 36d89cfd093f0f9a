"""A regression net whose hidden units are Swish-β (a·σ(β·a), β = exp(lb) trained per unit),
trained by TF1's AdamOptimizer (the fused ResourceApplyAdam kernel; the learning rate its
`lr` input) for 3 steps in a Session. Prints each step's loss and, last, the final weights
as JSON.

python tf1_swish.py
"""
import json
import os
import sys

import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import BETA_1, BETA_2, EPSILON, LR, STEPS, data

tf.compat.v1.disable_eager_execution()
x_value, y_value, init = data()
W = {n: tf.compat.v1.get_variable(n, initializer=a) for n, a in init.items()}
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
pre = tf.matmul(x, W["w1"]) + W["b1"]
hidden = pre * tf.sigmoid(tf.exp(W["lb"]) * pre)
out = tf.matmul(hidden, W["w2"]) + W["b2"]
loss = tf.reduce_mean(tf.square(out - y))
optimizer = tf.compat.v1.train.AdamOptimizer(LR, beta1=BETA_1, beta2=BETA_2, epsilon=EPSILON)
train_op = optimizer.minimize(loss)  # LINE:tf1_update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(STEPS):
        value, _ = sess.run([loss, train_op], {x: x_value, y: y_value})
        print("step", step, "loss", repr(float(value)))
    print("final", json.dumps({n: a.tolist() for n, a in sess.run(W).items()}))
