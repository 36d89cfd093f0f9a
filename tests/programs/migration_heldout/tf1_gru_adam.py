"""A GRU over 5 time steps (written by hand, TF1's GRUCell formulation: the reset gate applied
before the recurrent matmul), last state -> dense; Adam with clip_by_global_norm (TF1, Session).

python tf1_gru_adam.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

UNITS = 4
rs = np.random.RandomState(8)
sequences = rs.normal(size=(4, 5, 3)).astype(np.float32)
labels = np.array([1, 0, 0, 1], dtype=np.int32)
params = {
    "gru/kernel": rs.uniform(-0.7, 0.7, size=(3, 3 * UNITS)).astype(np.float32),
    "gru/recurrent_kernel": rs.uniform(-0.7, 0.7, size=(UNITS, 3 * UNITS)).astype(np.float32),
    "gru/bias": rs.uniform(-0.2, 0.2, size=(3 * UNITS,)).astype(np.float32),
    "out/kernel": rs.uniform(-1.0, 1.0, size=(UNITS, 2)).astype(np.float32),
    "out/bias": np.zeros(2, np.float32),
}

g = tf.Graph()
with g.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [None, 5, 3])
    y = tf.compat.v1.placeholder(tf.int32, [None])
    v = {name: tf.compat.v1.get_variable(name, initializer=value) for name, value in params.items()}  # AT:var
    kernel, recurrent, bias = v["gru/kernel"], v["gru/recurrent_kernel"], v["gru/bias"]

    h = tf.zeros([tf.shape(x)[0], UNITS])
    for t in range(5):
        x_proj = tf.matmul(x[:, t, :], kernel) + bias  # AT:gru
        x_z, x_r, x_h = tf.split(x_proj, 3, axis=1)  # AT:gru
        z = tf.sigmoid(x_z + tf.matmul(h, recurrent[:, :UNITS]))  # AT:gru
        r = tf.sigmoid(x_r + tf.matmul(h, recurrent[:, UNITS:2 * UNITS]))  # AT:gru
        candidate = tf.tanh(x_h + tf.matmul(r * h, recurrent[:, 2 * UNITS:]))  # AT:gru
        h = z * h + (1 - z) * candidate  # AT:gru
    logits = tf.matmul(h, v["out/kernel"]) + v["out/bias"]  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

    adam = tf.compat.v1.train.AdamOptimizer(learning_rate=0.02)  # AT:opt
    grads_and_vars = adam.compute_gradients(loss)  # AT:grads
    grads, variables = zip(*grads_and_vars)
    clipped, global_norm = tf.clip_by_global_norm(grads, 0.25)  # AT:clip
    train_op = adam.apply_gradients(zip(clipped, variables))  # AT:update
    init = tf.compat.v1.global_variables_initializer()

with tf.compat.v1.Session(graph=g) as sess:
    sess.run(init)
    losses = []
    for step in range(3):
        value, norm, _ = sess.run([loss, global_norm, train_op], {x: sequences, y: labels})
        print(f"step {step} loss {value:.6f} grad norm {norm:.4f}")
        losses.append(float(value))
    if os.environ.get("HELDOUT_TRACE"):
        final = sess.run(v)
        print("trace", json.dumps({"loss": losses,
                                   "weights": {k: a.tolist() for k, a in final.items()}}))
