"""A two-head self-attention block written by hand on dense projections (get_variable in a
variable_scope per layer; softmax(Q K^T / sqrt(d)) V per head, heads concatenated, an output
projection), a residual, a feed-forward layer with BERT's tanh approximation of gelu,
mean-pooled into a 3-class classifier; Adadelta with its TF1 defaults (rho 0.95, epsilon
1e-8) at learning rate 1.0 (TF1, Session). Weights from the arrays an earlier run saved.

python tf1_mha.py DATA_DIR     (DATA_DIR/mha.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

HEADS, KEY_DIM, D = 2, 2, 4
saved = dict(np.load(os.path.join(sys.argv[1], "mha.npz")))


def gelu(x):
    """BERT's gelu (the tanh approximation)."""
    cdf = 0.5 * (1.0 + tf.tanh(np.sqrt(2.0 / np.pi) * (x + 0.044715 * tf.pow(x, 3))))  # AT:ffn
    return x * cdf  # AT:ffn


def dense(inputs, units, name, activation=None):
    """A dense layer as the earlier run named its variables (<name>/kernel, <name>/bias)."""
    with tf.compat.v1.variable_scope(name):
        kernel = tf.compat.v1.get_variable("kernel", initializer=saved[name + "/kernel"])  # AT:var
        bias = tf.compat.v1.get_variable("bias", initializer=saved[name + "/bias"])  # AT:var
    out = tf.tensordot(inputs, kernel, axes=1) + bias  # AT:dense
    return activation(out) if activation else out


def split_heads(t):
    return tf.transpose(tf.reshape(t, [-1, 3, HEADS, KEY_DIM]), [0, 2, 1, 3])


x = tf.compat.v1.placeholder(tf.float32, [None, 3, D])
y = tf.compat.v1.placeholder(tf.int32, [None])

q = split_heads(dense(x, HEADS * KEY_DIM, "query"))  # AT:query
k = split_heads(dense(x, HEADS * KEY_DIM, "key"))  # AT:key
v = split_heads(dense(x, HEADS * KEY_DIM, "value"))  # AT:value
scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(KEY_DIM).astype(np.float32)  # AT:scores
weights = tf.nn.softmax(scores, axis=-1)  # AT:softmax
context = tf.reshape(tf.transpose(tf.matmul(weights, v), [0, 2, 1, 3]), [-1, 3, HEADS * KEY_DIM])  # AT:context
attended = dense(context, D, "output")  # AT:attn_out
h = x + attended  # AT:residual
ffn = dense(h, 6, "ffn", activation=gelu)  # AT:ffn
pooled = tf.reduce_mean(ffn, axis=1)  # AT:pool
logits = dense(pooled, 3, "classifier")  # AT:logits
loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

optimizer = tf.compat.v1.train.AdadeltaOptimizer(learning_rate=1.0)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

names = [n for n in saved if n not in ("x", "y")]
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND_TRACE"):
        final = {var.op.name: val for var, val in zip(tf.compat.v1.trainable_variables(), sess.run(tf.compat.v1.trainable_variables()))}
        print("trace", json.dumps({"loss": losses, "weights": {n: final[n].tolist() for n in names}}))
