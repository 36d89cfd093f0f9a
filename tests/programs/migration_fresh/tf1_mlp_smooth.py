"""A one-hidden-layer classifier: dense + relu, dropout (keep_prob fed 1.0 in this debugging
run), dense logits; cross-entropy with label smoothing 0.1 and per-example weights, plus an
L2 penalty (tf.nn.l2_loss) on both kernels; momentum SGD (TF1, Session). Weights from arrays
an earlier run saved, assigned after the initializer.

python tf1_mlp_smooth.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

rng = np.random.RandomState(818)
inputs = rng.normal(size=(6, 6)).astype(np.float32)
onehot = np.eye(4, dtype=np.float32)[[3, 0, 1, 2, 3, 1]]
example_weights = np.array([1.0, 0.5, 2.0, 1.0, 1.5, 0.5], dtype=np.float32)
saved = [rng.normal(0.0, 0.4, size=(6, 10)), rng.normal(0.0, 0.1, size=(10,)),
         rng.normal(0.0, 0.4, size=(10, 4)), rng.normal(0.0, 0.1, size=(4,))]
saved = [a.astype(np.float32) for a in saved]

x = tf.compat.v1.placeholder(tf.float32, [None, 6])
y = tf.compat.v1.placeholder(tf.float32, [None, 4])
w = tf.compat.v1.placeholder(tf.float32, [None])
keep_prob = tf.compat.v1.placeholder_with_default(1.0, [])
with tf.compat.v1.variable_scope("hidden"):
    hidden_k = tf.compat.v1.get_variable("kernel", [6, 10])  # AT:var
    hidden_b = tf.compat.v1.get_variable("bias", [10])  # AT:var
with tf.compat.v1.variable_scope("out"):
    out_k = tf.compat.v1.get_variable("kernel", [10, 4])  # AT:var
    out_b = tf.compat.v1.get_variable("bias", [4])  # AT:var
all_vars = [hidden_k, hidden_b, out_k, out_b]

hidden = tf.nn.relu(tf.matmul(x, hidden_k) + hidden_b)  # AT:hidden
hidden = tf.compat.v1.nn.dropout(hidden, keep_prob=keep_prob)  # AT:dropout
logits = tf.matmul(hidden, out_k) + out_b  # AT:logits
data_loss = tf.compat.v1.losses.softmax_cross_entropy(y, logits, weights=w, label_smoothing=0.1)  # AT:loss
penalty = 1e-3 * (tf.nn.l2_loss(hidden_k) + tf.nn.l2_loss(out_k))  # AT:reg
total_loss = data_loss + penalty  # AT:total
train_op = tf.compat.v1.train.MomentumOptimizer(0.05, momentum=0.9).minimize(total_loss)  # AT:opt AT:update

sess = tf.compat.v1.Session()
sess.run(tf.compat.v1.global_variables_initializer())
for variable, value in zip(all_vars, saved):
    variable.load(value, sess)  # AT:restore
losses = []
for step in range(3):
    loss_value, _ = sess.run([total_loss, train_op], {x: inputs, y: onehot, w: example_weights, keep_prob: 1.0})
    print("step %d loss %.7f" % (step, loss_value))
    losses.append(float(loss_value))
if os.environ.get("FRESH_TRACE"):
    names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
    print("trace", json.dumps({"loss": losses, "weights": {
        n: v.tolist() for n, v in zip(names, sess.run(all_vars))}}))
sess.close()
