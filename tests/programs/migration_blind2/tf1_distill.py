"""Knowledge distillation: a student MLP (4 -> 5 relu -> 3) learns the teacher's softened
distribution, softmax(teacher logits / T) with T = 2, by the cross-entropy of its own logits
/ T, scaled by T^2 (Hinton et al.); plain gradient descent whose rate is fed each step
through a placeholder (0.5, 0.3, 0.1; TF1, Session). Weights and the teacher's logits from
the arrays an earlier run saved.

python tf1_distill.py DATA_DIR     (DATA_DIR/distill.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

T = 2.0
RATES = [0.5, 0.3, 0.1]
saved = dict(np.load(os.path.join(sys.argv[1], "distill.npz")))
names = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
teacher = tf.compat.v1.placeholder(tf.float32, [None, 3])
learning_rate = tf.compat.v1.placeholder(tf.float32, [])  # AT:lr
hidden = tf.nn.relu(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
logits = tf.matmul(hidden, W["logits/kernel"]) + W["logits/bias"]  # AT:logits
soft_targets = tf.nn.softmax(teacher / T)  # AT:soft
xent = tf.nn.softmax_cross_entropy_with_logits(labels=soft_targets, logits=logits / T)  # AT:loss
loss = T * T * tf.reduce_mean(xent)  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], teacher: saved["y"], learning_rate: RATES[step]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND2_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
