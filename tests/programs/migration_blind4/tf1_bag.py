"""A bag-of-words classifier: each sentence (up to 5 token ids, 0 pads the end) is the mean
of its tokens' embeddings (tf.nn.embedding_lookup_sparse, combiner="mean", on a SparseTensor
of the real tokens only), a 4 -> 3 softmax layer on it, the sparse softmax cross-entropy;
plain gradient descent at 0.5 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_bag.py DATA_DIR     (DATA_DIR/bag.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "bag.npz")))
names = ["embedding/embeddings", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var


def to_sparse(ids):
    """The real tokens of a padded [batch, time] id array, as a SparseTensorValue."""
    rows, cols = np.nonzero(ids)
    return tf.compat.v1.SparseTensorValue(np.stack([rows, cols], 1).astype(np.int64), ids[rows, cols].astype(np.int64), np.array(ids.shape, np.int64))


tokens = tf.compat.v1.sparse_placeholder(tf.int64)
labels = tf.compat.v1.placeholder(tf.int32, [None])
sentence = tf.compat.v1.nn.embedding_lookup_sparse(W["embedding/embeddings"], tokens, None, combiner="mean")  # AT:pool
logits = tf.matmul(sentence, W["out/kernel"]) + W["out/bias"]  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))  # AT:loss

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.5)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {tokens: to_sparse(saved["ids"]), labels: saved["labels"]}
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], feed)
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND4_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
