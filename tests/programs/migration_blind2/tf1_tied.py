"""A next-token model with tied weights: the embedding (6 x 4) reads the context, its mean
goes through a tanh layer, and the same embedding, transposed, projects back onto the
vocabulary (plus an output bias); sparse softmax cross-entropy; plain gradient descent at 0.5
(TF1, Session). The embedding's gradient sums both uses. Weights from the arrays an earlier
run saved.

python tf1_tied.py DATA_DIR     (DATA_DIR/tied.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "tied.npz")))
names = ["embedding/embeddings", "hidden/kernel", "hidden/bias", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.int32, [None, 3])
y = tf.compat.v1.placeholder(tf.int32, [None])
context = tf.reduce_mean(tf.nn.embedding_lookup(W["embedding/embeddings"], x), axis=1)  # AT:embed
hidden = tf.tanh(tf.matmul(context, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
logits = tf.matmul(hidden, W["embedding/embeddings"], transpose_b=True) + W["out/bias"]  # AT:logits AT:tied
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
grads_and_vars = optimizer.compute_gradients(loss)  # AT:grads
train_op = optimizer.apply_gradients(grads_and_vars)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND2_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
