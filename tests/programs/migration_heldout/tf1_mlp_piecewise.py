"""A 5-12-3 tanh MLP, momentum SGD with a piecewise-constant learning rate (TF1, Session).

python tf1_mlp_piecewise.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

STEPS = 4
rng = np.random.RandomState(77)
features = rng.normal(0.0, 1.2, size=(8, 5)).astype(np.float32)
labels = np.array([2, 0, 1, 2, 1, 0, 0, 2], dtype=np.int32)
init = {
    "hidden/kernel": rng.uniform(-0.8, 0.8, size=(5, 12)).astype(np.float32),
    "hidden/bias": np.zeros(12, np.float32),
    "logits/kernel": rng.uniform(-0.6, 0.6, size=(12, 3)).astype(np.float32),
    "logits/bias": np.zeros(3, np.float32),
}

graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [None, 5], name="x")
    y = tf.compat.v1.placeholder(tf.int32, [None], name="y")
    with tf.compat.v1.variable_scope("hidden"):
        k1 = tf.compat.v1.get_variable("kernel", initializer=init["hidden/kernel"])  # AT:var
        c1 = tf.compat.v1.get_variable("bias", initializer=init["hidden/bias"])  # AT:var
    with tf.compat.v1.variable_scope("logits"):
        k2 = tf.compat.v1.get_variable("kernel", initializer=init["logits/kernel"])  # AT:var
        c2 = tf.compat.v1.get_variable("bias", initializer=init["logits/bias"])  # AT:var
    hidden = tf.tanh(tf.matmul(x, k1) + c1)  # AT:hidden
    logits = tf.matmul(hidden, k2) + c2  # AT:logits
    loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=y, logits=logits)  # AT:loss

    global_step = tf.compat.v1.train.get_or_create_global_step()
    lr = tf.compat.v1.train.piecewise_constant(global_step, boundaries=[1], values=[0.1, 0.02])  # AT:lr
    optimizer = tf.compat.v1.train.MomentumOptimizer(lr, momentum=0.9)  # AT:opt
    train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update
    init_op = tf.compat.v1.global_variables_initializer()

losses = []
with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(init_op)
    for step in range(STEPS):
        value, _ = sess.run([loss, train_op], {x: features, y: labels})
        print(f"step {step}: loss {value:.6f}")
        losses.append(float(value))
    if os.environ.get("HELDOUT_TRACE"):
        final = sess.run({"hidden/kernel": k1, "hidden/bias": c1, "logits/kernel": k2,
                          "logits/bias": c2})
        print("trace", json.dumps({"loss": losses,
                                   "weights": {k: v.tolist() for k, v in final.items()}}))
