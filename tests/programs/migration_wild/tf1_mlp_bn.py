"""dense (no bias) -> batch normalization in training (batch statistics, moving averages
with decay 0.9 updated through UPDATE_OPS) -> relu -> dense regression head; mean squared
error; plain gradient descent with the gradients clipped by value in user code (TF1, Session).
Every variable, moving statistics included, assigned from the checkpoint an earlier run saved
(read by name; `Saver().restore` fails under `tfdbg-tui run`, see EXPECTATIONS.md).

python tf1_mlp_bn.py DATA_DIR     (DATA_DIR/mlp_bn.ckpt: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(5555)
features = rng.normal(size=(6, 5)).astype(np.float32)
target = rng.normal(size=(6, 1)).astype(np.float32)

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
t = tf.compat.v1.placeholder(tf.float32, [None, 1])
kernel = tf.compat.v1.get_variable("hidden/kernel", [5, 8])  # AT:var
gamma = tf.compat.v1.get_variable("bn/gamma", [8], initializer=tf.compat.v1.ones_initializer())  # AT:var
beta = tf.compat.v1.get_variable("bn/beta", [8], initializer=tf.compat.v1.zeros_initializer())  # AT:var
moving_mean = tf.compat.v1.get_variable("bn/moving_mean", [8], initializer=tf.compat.v1.zeros_initializer(), trainable=False)  # AT:state
moving_var = tf.compat.v1.get_variable("bn/moving_variance", [8], initializer=tf.compat.v1.ones_initializer(), trainable=False)  # AT:state
out_k = tf.compat.v1.get_variable("out/kernel", [8, 1])  # AT:var
out_b = tf.compat.v1.get_variable("out/bias", [1], initializer=tf.compat.v1.zeros_initializer())  # AT:var

hidden = tf.matmul(x, kernel)  # AT:hidden
mean, variance = tf.nn.moments(hidden, axes=[0])  # AT:bn
bn = gamma * (hidden - mean) * tf.math.rsqrt(variance + 1e-3) + beta  # AT:bn
tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, moving_mean.assign(moving_mean * 0.9 + mean * 0.1))  # AT:state
tf.compat.v1.add_to_collection(tf.compat.v1.GraphKeys.UPDATE_OPS, moving_var.assign(moving_var * 0.9 + variance * 0.1))  # AT:state
act = tf.nn.relu(bn)  # AT:relu
prediction = tf.matmul(act, out_k) + out_b  # AT:head
loss = tf.compat.v1.losses.mean_squared_error(t, prediction)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.05)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss)  # AT:grads
clipped = [(tf.clip_by_value(g, -0.2, 0.2), v) for g, v in grads_and_vars]  # AT:clip
with tf.control_dependencies(tf.compat.v1.get_collection(tf.compat.v1.GraphKeys.UPDATE_OPS)):
    train_op = optimizer.apply_gradients(clipped)  # AT:update
reader = tf.compat.v1.train.load_checkpoint(os.path.join(sys.argv[1], "mlp_bn.ckpt"))
restore = tf.group(*[tf.compat.v1.assign(v, reader.get_tensor(v.op.name)) for v in [kernel, gamma, beta, moving_mean, moving_var, out_k, out_b]])  # AT:restore

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: features, t: target})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("WILD_TRACE"):
        names = ["hidden/kernel", "bn/gamma", "bn/beta", "out/kernel", "out/bias"]
        final = sess.run([kernel, gamma, beta, out_k, out_b])
        stats = sess.run([moving_mean, moving_var])
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in zip(names, final)},
                                   "state": {"bn/moving_mean": stats[0].tolist(), "bn/moving_variance": stats[1].tolist()}}))
