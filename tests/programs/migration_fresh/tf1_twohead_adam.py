"""A shared dense trunk with two heads: a 3-way classifier and a 2-value regression; the loss
is the classifier's cross-entropy plus half the regression's mean squared error. Adam with
its own betas and epsilon, a global step (TF1, Session). The weights come from arrays an
earlier run saved, assigned after the initializer.

python tf1_twohead_adam.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(515)
features = rng.normal(size=(6, 5)).astype(np.float32)
classes = np.array([0, 2, 1, 2, 0, 1], dtype=np.int32)
targets = rng.normal(0.0, 0.5, size=(6, 2)).astype(np.float32)
saved = {
    "trunk/kernel": rng.normal(0.0, 0.5, size=(5, 8)), "trunk/bias": rng.normal(0.0, 0.1, size=(8,)),
    "cls/kernel": rng.normal(0.0, 0.5, size=(8, 3)), "cls/bias": np.zeros(3),
    "reg/kernel": rng.normal(0.0, 0.5, size=(8, 2)), "reg/bias": rng.normal(0.0, 0.1, size=(2,)),
}
saved = {k: v.astype(np.float32) for k, v in saved.items()}

x = tf.compat.v1.placeholder(tf.float32, [None, 5], name="features")
y_cls = tf.compat.v1.placeholder(tf.int32, [None], name="classes")
y_reg = tf.compat.v1.placeholder(tf.float32, [None, 2], name="targets")
variables = {}
for name, value in saved.items():
    variables[name] = tf.compat.v1.get_variable(name, shape=value.shape, initializer=tf.compat.v1.glorot_uniform_initializer())  # AT:var
restore = [tf.compat.v1.assign(variables[n], saved[n]) for n in saved]  # AT:restore

h = tf.nn.relu(tf.matmul(x, variables["trunk/kernel"]) + variables["trunk/bias"])  # AT:trunk
cls_logits = tf.matmul(h, variables["cls/kernel"]) + variables["cls/bias"]  # AT:cls
reg_out = tf.matmul(h, variables["reg/kernel"]) + variables["reg/bias"]  # AT:reg
cls_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y_cls, logits=cls_logits))  # AT:loss_cls
reg_loss = tf.compat.v1.losses.mean_squared_error(y_reg, reg_out)  # AT:loss_reg
loss = cls_loss + 0.5 * reg_loss  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
optimizer = tf.compat.v1.train.AdamOptimizer(0.02, beta1=0.8, beta2=0.95, epsilon=1e-6)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    sess.run(restore)  # AT:restore
    losses = []
    for step in range(3):
        loss_value, _ = sess.run([loss, train_op], {x: features, y_cls: classes, y_reg: targets})
        print("step", step, "loss", loss_value)
        losses.append(float(loss_value))
    if os.environ.get("FRESH_TRACE"):
        final = sess.run(variables)
        print("trace", json.dumps({"loss": losses, "weights": {n: v.tolist() for n, v in final.items()}}))
