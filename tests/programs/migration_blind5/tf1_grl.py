"""Domain-adversarial training (DANN, Ganin & Lempitsky 2015) as TF 1.x code had it: a shared
5 -> 6 tanh feature layer, a label head, and a domain head behind a gradient reversal layer
(identity forward, -0.3 x the gradient backward) built with RegisterGradient and
gradient_override_map; both heads' sigmoid cross-entropies added; plain gradient descent
(0.1; TF1, Session). Weights from the arrays an earlier run saved.

python tf1_grl.py DATA_DIR     (DATA_DIR/grl.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

LAMBDA = 0.3
saved = dict(np.load(os.path.join(sys.argv[1], "grl.npz")))
names = ["feature/kernel", "feature/bias", "label/kernel", "label/bias", "domain/kernel", "domain/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var


@tf.RegisterGradient("FlipGradient")
def _flip_gradient(op, grad):
    return [tf.negative(grad) * LAMBDA]  # AT:grl


def flip_gradient(x):
    """Identity forward; the gradient reversed and scaled by LAMBDA backward."""
    with tf.compat.v1.get_default_graph().gradient_override_map({"Identity": "FlipGradient"}):
        return tf.identity(x)  # AT:grl


x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
d = tf.compat.v1.placeholder(tf.float32, [None, 1])
feature = tf.tanh(tf.matmul(x, W["feature/kernel"]) + W["feature/bias"])  # AT:feature
label_logit = tf.matmul(feature, W["label/kernel"]) + W["label/bias"]  # AT:label
domain_logit = tf.matmul(flip_gradient(feature), W["domain/kernel"]) + W["domain/bias"]  # AT:domain
label_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=label_logit))  # AT:loss
domain_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=d, logits=domain_logit))  # AT:loss
loss = label_loss + domain_loss  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update AT:grads

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"], d: saved["d"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND5_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
