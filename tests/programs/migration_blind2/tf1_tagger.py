"""A sequence tagger: an embedding, a bidirectional simple RNN written by hand (one tanh cell
run forward, one run over the reversed sentence and its states reversed back, concatenated),
a dense layer per token; the cross-entropy of every real token (the pads, tag 0, weigh 0 and
the mean is over the real tokens: tf.losses' SUM_BY_NONZERO_WEIGHTS); momentum 0.9 at 0.1
(TF1, Session). Weights from the arrays an earlier run saved.

python tf1_tagger.py DATA_DIR     (DATA_DIR/tagger.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "tagger.npz")))
names = [n for n in saved if n not in ("x", "y")]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.int32, [None, 4])
y = tf.compat.v1.placeholder(tf.int32, [None, 4])


def rnn(inputs, d):
    """h_t = tanh(x_t W + b + h_{t-1} U), h_0 = 0: the states of every step."""
    h = tf.zeros([tf.shape(inputs)[0], 3])
    states = []
    for t in range(4):
        h = tf.tanh(tf.matmul(inputs[:, t], W[d + "/kernel"]) + W[d + "/bias"] + tf.matmul(h, W[d + "/recurrent_kernel"]))  # AT:rnn
        states.append(h)
    return tf.stack(states, axis=1)  # AT:rnn


embedded = tf.nn.embedding_lookup(W["embedding/embeddings"], x)  # AT:embed
forward = rnn(embedded, "fwd")  # AT:fwd
backward = tf.reverse(rnn(tf.reverse(embedded, [1]), "bwd"), [1])  # AT:bwd
both = tf.concat([forward, backward], axis=-1)  # AT:concat
logits = tf.tensordot(both, W["tags/kernel"], axes=1) + W["tags/bias"]  # AT:logits
mask = tf.cast(tf.not_equal(y, 0), tf.float32)  # AT:loss
loss = tf.compat.v1.losses.sparse_softmax_cross_entropy(labels=y, logits=logits, weights=mask)  # AT:loss

optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

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
