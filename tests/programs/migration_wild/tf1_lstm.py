"""An LSTM over 4 time steps written by hand (gates in the order i, f, c, o; no forget bias),
its last state into a dense classifier; an L2 penalty on the recurrent kernel only; SGD with
Nesterov momentum (TF1, Session). Weights drawn inline, as the earlier run drew them.

python tf1_lstm.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

UNITS = 3
rng = np.random.RandomState(1111)
sequences = rng.normal(size=(4, 4, 2)).astype(np.float32)
labels = np.array([1, 0, 1, 0], dtype=np.int32)
init = {
    "lstm/kernel": rng.uniform(-0.6, 0.6, size=(2, 4 * UNITS)).astype(np.float32),
    "lstm/recurrent_kernel": rng.uniform(-0.6, 0.6, size=(UNITS, 4 * UNITS)).astype(np.float32),
    "lstm/bias": rng.uniform(-0.2, 0.2, size=(4 * UNITS,)).astype(np.float32),
    "out/kernel": rng.normal(0.0, 0.6, size=(UNITS, 2)).astype(np.float32),
    "out/bias": np.zeros(2, np.float32),
}

x = tf.compat.v1.placeholder(tf.float32, [None, 4, 2])
y = tf.compat.v1.placeholder(tf.int32, [None])
w = {name: tf.compat.v1.get_variable(name, initializer=value) for name, value in init.items()}  # AT:var

h = tf.zeros([tf.shape(x)[0], UNITS])
c = tf.zeros([tf.shape(x)[0], UNITS])
for t in range(4):
    z = tf.matmul(x[:, t, :], w["lstm/kernel"]) + tf.matmul(h, w["lstm/recurrent_kernel"]) + w["lstm/bias"]  # AT:lstm
    i, f, g, o = tf.split(z, 4, axis=1)  # AT:lstm
    c = tf.sigmoid(f) * c + tf.sigmoid(i) * tf.tanh(g)  # AT:lstm
    h = tf.sigmoid(o) * tf.tanh(c)  # AT:lstm
logits = tf.matmul(h, w["out/kernel"]) + w["out/bias"]  # AT:logits
data_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
penalty = 1e-3 * tf.nn.l2_loss(w["lstm/recurrent_kernel"])  # AT:reg
loss = data_loss + penalty  # AT:total

optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9, use_nesterov=True)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: sequences, y: labels})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("WILD_TRACE"):
        final = sess.run(w)
        print("trace", json.dumps({"loss": losses, "weights": {k: a.tolist() for k, a in final.items()}}))
