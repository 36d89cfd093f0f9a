"""A two-layer regression trained by Adam in TF1 (graph, Session): TF1's fused
`AdamOptimizer`, or (`hand`) the same Adam written by hand as users did for variants Keras
lacked: its moments and step counter are variables of the user's (`get_variable`,
`trainable=False`) updated with `assign` ops, the weights with `assign_sub`. Both compute
lr_t = lr * sqrt(1 - b2^t) / (1 - b1^t), m = b1 m + (1 - b1) g, v = b2 v + (1 - b2) g²,
w -= lr_t m / (sqrt(v) + eps): the same training.

python tf1_adam.py fused|hand [BETA2]
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()
HAND = sys.argv[1] == "hand"
LR, BETA1, BETA2, EPS = 0.05, 0.9, float(sys.argv[2]) if len(sys.argv) > 2 else 0.999, 1e-7
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(8, 3)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 1)).astype(np.float32))
w1 = tf.compat.v1.get_variable("w1", initializer=rng.normal(size=(3, 4)).astype(np.float32))
b1 = tf.compat.v1.get_variable("b1", initializer=np.zeros(4, np.float32))
w2 = tf.compat.v1.get_variable("w2", initializer=rng.normal(size=(4, 1)).astype(np.float32))
hidden = tf.tanh(tf.matmul(x, w1) + b1)
loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y))
params = [w1, b1, w2]


def hand_adam(loss, params):
    grads = tf.gradients(loss, params)
    t = tf.compat.v1.get_variable("adam/t", initializer=0.0, trainable=False)
    t_new = tf.compat.v1.assign_add(t, 1.0)
    lr_t = LR * tf.sqrt(1.0 - tf.pow(BETA2, t_new)) / (1.0 - tf.pow(BETA1, t_new))
    updates = []
    for p, g in zip(params, grads, strict=True):
        zeros = np.zeros(p.shape, np.float32)
        m = tf.compat.v1.get_variable(p.op.name + "/m", initializer=zeros, trainable=False)
        v = tf.compat.v1.get_variable(p.op.name + "/v", initializer=zeros, trainable=False)
        m_t = m.assign(BETA1 * m + (1.0 - BETA1) * g)
        v_t = v.assign(BETA2 * v + (1.0 - BETA2) * tf.square(g))
        updates.append(p.assign_sub(lr_t * m_t / (tf.sqrt(v_t) + EPS)))
    return tf.group(*updates)


if HAND:
    train_op = hand_adam(loss, params)
else:
    train_op = tf.compat.v1.train.AdamOptimizer(LR, BETA1, BETA2, EPS).minimize(loss)

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train_op])
        print(f"step {step} loss {value:.6f}")
