"""Bag of embeddings: embedding lookup -> mean over the sequence -> dense, with an L2 penalty
on the dense kernel (0.01 * tf.nn.l2_loss), RMSProp (TF1, Session).

python tf1_embed_rmsprop.py [DATA_DIR]     (DATA_DIR unused)
"""
import json
import os

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

state = np.random.RandomState(31)
# 30 distinct token ids: no id twice in the batch
tokens = np.array([[15, 5, 22, 26, 18], [14, 13, 2, 16, 1], [17, 27, 7, 12, 4],
                   [23, 6, 20, 9, 11], [29, 19, 21, 0, 8], [28, 3, 25, 24, 10]], dtype=np.int32)
targets = np.array([0, 2, 1, 1, 0, 2], dtype=np.int32)
embedding_init = state.normal(0.0, 0.8, size=(30, 4)).astype(np.float32)
kernel_init = state.normal(0.0, 0.9, size=(4, 3)).astype(np.float32)
bias_init = state.uniform(-0.2, 0.2, size=(3,)).astype(np.float32)

ids = tf.compat.v1.placeholder(tf.int32, [None, 5])
y = tf.compat.v1.placeholder(tf.int32, [None])
embeddings = tf.Variable(embedding_init, name="embedding")  # AT:var
kernel = tf.Variable(kernel_init, name="head/kernel")  # AT:var
bias = tf.Variable(bias_init, name="head/bias")  # AT:var

vectors = tf.nn.embedding_lookup(embeddings, ids)  # AT:embed
pooled = tf.reduce_mean(vectors, axis=1)  # AT:pool
logits = tf.matmul(pooled, kernel) + bias  # AT:logits
data_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
l2 = 0.01 * tf.nn.l2_loss(kernel)  # AT:reg
loss = data_loss + l2  # AT:reg
optimizer = tf.compat.v1.train.RMSPropOptimizer(0.01, decay=0.9, momentum=0.0, epsilon=1e-7)  # AT:opt
step_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    recorded = []
    for step in range(3):
        total, _ = sess.run([loss, step_op], feed_dict={ids: tokens, y: targets})
        print("step", step, "loss", total)
        recorded.append(float(total))
    if os.environ.get("HELDOUT_TRACE"):
        values = sess.run([embeddings, kernel, bias])
        names = ["embedding", "head/kernel", "head/bias"]
        print("trace", json.dumps({"loss": recorded,
                                   "weights": {n: v.tolist() for n, v in zip(names, values)}}))
