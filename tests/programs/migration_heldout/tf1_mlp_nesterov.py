"""A 4-16-8-3 MLP trained with Nesterov momentum, TF1 style (graph + Session).

python tf1_mlp_nesterov.py [DATA_DIR]     (DATA_DIR unused: every program takes one)
The weights come from an earlier run, here regenerated from a fixed seed.
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(1234)
x_data = rng.normal(size=(6, 4)).astype(np.float32)
y_data = np.array([0, 2, 1, 1, 0, 2], dtype=np.int64)
w1 = rng.uniform(-0.6, 0.6, size=(4, 16)).astype(np.float32)
b1 = rng.uniform(-0.1, 0.1, size=(16,)).astype(np.float32)
w2 = rng.uniform(-0.5, 0.5, size=(16, 8)).astype(np.float32)
b2 = rng.uniform(-0.1, 0.1, size=(8,)).astype(np.float32)
w3 = rng.uniform(-0.7, 0.7, size=(8, 3)).astype(np.float32)
b3 = rng.uniform(-0.1, 0.1, size=(3,)).astype(np.float32)

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.int64, [None])

W1 = tf.Variable(w1, name="fc1/kernel")  # AT:var
B1 = tf.Variable(b1, name="fc1/bias")  # AT:var
W2 = tf.Variable(w2, name="fc2/kernel")  # AT:var
B2 = tf.Variable(b2, name="fc2/bias")  # AT:var
W3 = tf.Variable(w3, name="out/kernel")  # AT:var
B3 = tf.Variable(b3, name="out/bias")  # AT:var

h1 = tf.nn.relu(tf.matmul(x, W1) + B1)  # AT:fc1
h2 = tf.nn.relu(tf.matmul(h1, W2) + B2)  # AT:fc2
logits = tf.matmul(h2, W3) + B3  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

opt = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9, use_nesterov=True)  # AT:opt
train_op = opt.minimize(loss)  # AT:update

variables = [W1, B1, W2, B2, W3, B3]
losses = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], feed_dict={x: x_data, y: y_data})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("HELDOUT_TRACE"):
        names = ["fc1/kernel", "fc1/bias", "fc2/kernel", "fc2/bias", "out/kernel", "out/bias"]
        final = dict(zip(names, (v.tolist() for v in sess.run(variables))))
        print("trace", json.dumps({"loss": losses, "weights": final}))
