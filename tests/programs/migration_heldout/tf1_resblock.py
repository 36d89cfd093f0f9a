"""A residual MLP: dense -> [dense, relu, dense] + skip -> relu -> dropout -> dense, label
smoothing 0.1, an L2 penalty on the kernels, plain gradient descent (TF1, Session). Dropout's
keep_prob is a placeholder: 0.7 to train, 1.0 for this debugging run. The weights are assigned
after the initializer, from arrays saved by an earlier run.

python tf1_resblock.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(60)
x_np = rng.normal(size=(8, 6)).astype(np.float32)
y_np = np.eye(3, dtype=np.float32)[[0, 1, 2, 1, 0, 2, 2, 1]]
saved = [rng.normal(0, 0.5, (6, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.4, (8, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.4, (8, 8)), rng.normal(0, 0.1, (8,)),
         rng.normal(0, 0.5, (8, 3)), rng.normal(0, 0.1, (3,))]
saved = [a.astype(np.float32) for a in saved]


def dense_vars(name, n_in, n_out):
    with tf.compat.v1.variable_scope(name):
        kernel = tf.compat.v1.get_variable("kernel", [n_in, n_out], initializer=tf.compat.v1.glorot_uniform_initializer())  # AT:var
        bias = tf.compat.v1.get_variable("bias", [n_out], initializer=tf.compat.v1.zeros_initializer())  # AT:var
    return kernel, bias


x = tf.compat.v1.placeholder(tf.float32, [None, 6])
y = tf.compat.v1.placeholder(tf.float32, [None, 3])
keep_prob = tf.compat.v1.placeholder(tf.float32, [])
k0, b0 = dense_vars("stem", 6, 8)
k1, b1 = dense_vars("block_a", 8, 8)
k2, b2 = dense_vars("block_b", 8, 8)
k3, b3 = dense_vars("head", 8, 3)
all_vars = [k0, b0, k1, b1, k2, b2, k3, b3]

stem = tf.nn.relu(tf.matmul(x, k0) + b0)  # AT:stem
inner = tf.nn.relu(tf.matmul(stem, k1) + b1)  # AT:block_a
inner = tf.matmul(inner, k2) + b2  # AT:block_b
h = tf.nn.relu(stem + inner)  # AT:residual
h = tf.compat.v1.nn.dropout(h, keep_prob=keep_prob)  # AT:dropout
logits = tf.matmul(h, k3) + b3  # AT:logits
data_loss = tf.compat.v1.losses.softmax_cross_entropy(y, logits, label_smoothing=0.1)  # AT:loss
penalty = 5e-3 * tf.add_n([tf.nn.l2_loss(k) for k in (k0, k1, k2, k3)])  # AT:reg
total_loss = data_loss + penalty  # AT:reg
train_op = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(total_loss)  # AT:opt AT:update

restore = [tf.compat.v1.assign(v, value) for v, value in zip(all_vars, saved)]  # AT:restore
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        loss_value, _ = sess.run([total_loss, train_op], {x: x_np, y: y_np, keep_prob: 1.0})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("HELDOUT_TRACE"):
        names = ["stem/kernel", "stem/bias", "block_a/kernel", "block_a/bias", "block_b/kernel",
                 "block_b/bias", "head/kernel", "head/bias"]
        print("trace", json.dumps({"loss": losses, "weights": {
            n: a.tolist() for n, a in zip(names, sess.run(all_vars))}}))
