"""Two inputs: a 3-feature branch (dense + relu) and a 2-feature branch (dense + tanh),
concatenated into a linear regression head; Huber loss with delta 0.5; centered RMSProp with
momentum (TF1, Session). Weights drawn inline, as the earlier run drew them.

python tf1_twoinput_huber.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(3333)
feats_a = rng.normal(size=(6, 3)).astype(np.float32)
feats_b = rng.normal(size=(6, 2)).astype(np.float32)
target = rng.normal(0.0, 1.0, size=(6, 1)).astype(np.float32)
init = {
    "branch_a/kernel": rng.normal(0.0, 0.5, size=(3, 4)).astype(np.float32),
    "branch_a/bias": rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
    "branch_b/kernel": rng.normal(0.0, 0.5, size=(2, 4)).astype(np.float32),
    "branch_b/bias": rng.uniform(-0.1, 0.1, size=(4,)).astype(np.float32),
    "head/kernel": rng.normal(0.0, 0.5, size=(8, 1)).astype(np.float32),
    "head/bias": np.zeros(1, np.float32),
}

xa = tf.compat.v1.placeholder(tf.float32, [None, 3])
xb = tf.compat.v1.placeholder(tf.float32, [None, 2])
t = tf.compat.v1.placeholder(tf.float32, [None, 1])
w = {name: tf.compat.v1.get_variable(name, initializer=value) for name, value in init.items()}  # AT:var

ha = tf.nn.relu(tf.matmul(xa, w["branch_a/kernel"]) + w["branch_a/bias"])  # AT:branch_a
hb = tf.tanh(tf.matmul(xb, w["branch_b/kernel"]) + w["branch_b/bias"])  # AT:branch_b
merged = tf.concat([ha, hb], axis=1)  # AT:concat
prediction = tf.matmul(merged, w["head/kernel"]) + w["head/bias"]  # AT:head
loss = tf.compat.v1.losses.huber_loss(t, prediction, delta=0.5)  # AT:loss

optimizer = tf.compat.v1.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.5, epsilon=1e-6, centered=True)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {xa: feats_a, xb: feats_b, t: target})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("WILD_TRACE"):
        final = sess.run(w)
        print("trace", json.dumps({"loss": losses, "weights": {k: a.tolist() for k, a in final.items()}}))
