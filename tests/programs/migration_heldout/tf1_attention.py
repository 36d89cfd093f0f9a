"""A one-head self-attention block with a residual connection, mean-pooled into a classifier;
SGD with a staircase exponential decay, each gradient clipped to [-0.1, 0.1] (TF1, Session).

python tf1_attention.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

D, K = 6, 4
rng = np.random.RandomState(404)
tokens = rng.normal(size=(3, 4, D)).astype(np.float32)
labels = np.array([1, 0, 1], dtype=np.int32)
weights = {
    "query/kernel": rng.normal(0, 0.5, (D, K)), "query/bias": rng.normal(0, 0.1, (K,)),
    "key/kernel": rng.normal(0, 0.5, (D, K)), "key/bias": rng.normal(0, 0.1, (K,)),
    "value/kernel": rng.normal(0, 0.5, (D, K)), "value/bias": rng.normal(0, 0.1, (K,)),
    "output/kernel": rng.normal(0, 0.5, (K, D)), "output/bias": rng.normal(0, 0.1, (D,)),
    "classifier/kernel": rng.normal(0, 0.5, (D, 2)), "classifier/bias": np.zeros(2),
}
weights = {k: v.astype(np.float32) for k, v in weights.items()}

graph = tf.Graph()
with graph.as_default():
    x = tf.compat.v1.placeholder(tf.float32, [None, 4, D])
    y = tf.compat.v1.placeholder(tf.int32, [None])
    W = {k: tf.compat.v1.get_variable(k, initializer=v) for k, v in weights.items()}  # AT:var

    q = tf.matmul(x, W["query/kernel"]) + W["query/bias"]  # AT:query
    k = tf.matmul(x, W["key/kernel"]) + W["key/bias"]  # AT:key
    v = tf.matmul(x, W["value/kernel"]) + W["value/bias"]  # AT:value
    scores = tf.matmul(q, k, transpose_b=True) / np.sqrt(K).astype(np.float32)  # AT:scores
    attention = tf.nn.softmax(scores, axis=-1)  # AT:softmax
    context = tf.matmul(attention, v)  # AT:context
    attended = tf.matmul(context, W["output/kernel"]) + W["output/bias"]  # AT:attn_out
    h = x + attended  # AT:residual
    pooled = tf.reduce_mean(h, axis=1)  # AT:pool
    logits = tf.matmul(pooled, W["classifier/kernel"]) + W["classifier/bias"]  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss

    global_step = tf.compat.v1.train.get_or_create_global_step()
    learning_rate = tf.compat.v1.train.exponential_decay(0.2, global_step, decay_steps=2, decay_rate=0.5, staircase=True)  # AT:lr
    sgd = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
    gvs = sgd.compute_gradients(loss)  # AT:grads
    capped = [(tf.clip_by_value(grad, -0.1, 0.1), var) for grad, var in gvs]  # AT:clip
    train_op = sgd.apply_gradients(capped, global_step=global_step)  # AT:update

    with tf.compat.v1.Session() as sess:
        sess.run(tf.compat.v1.global_variables_initializer())
        losses = []
        for step in range(3):
            _, value, lr = sess.run([train_op, loss, learning_rate], {x: tokens, y: labels})
            print(f"step {step} lr {lr:.4f} loss {value:.6f}")
            losses.append(float(value))
        if os.environ.get("HELDOUT_TRACE"):
            final = sess.run(W)
            print("trace", json.dumps({"loss": losses,
                                       "weights": {n: a.tolist() for n, a in final.items()}}))
