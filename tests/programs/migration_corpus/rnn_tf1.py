"""TF1 side of the sequence pairs: embedding → a hand-written simple RNN → dense, Session.

Usage: python rnn_tf1.py LOGDIR --variant rnn     (LOGDIR '-': print the trace, no dump)

The RNN is unrolled over the 5 time steps as TF1 users wrote one by hand:
h_t = tanh(x_t·W + b + h_{t-1}·U), h_0 = 0; the last h feeds the dense layer. Momentum 0.9,
lr 0.1 (the embedding's gradient is sparse: TF1 applies it with a sparse momentum kernel).
Weights restored from a checkpoint an earlier run saved: read with tf.train.load_checkpoint,
assigned after the initializer (`Saver.restore` fails when tfdbg2 instruments the graph in
TF 2.21: "Variable to save is not a Variable").
Marked lines: `# AT:<name>`.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import STEPS, emit, parse, rnn_data, start, stop, write_tf1_checkpoint

logdir, variant = parse(("rnn",))
data = rnn_data()
v1 = tf.compat.v1
NAMES = ["embedding/embeddings", "rnn/kernel", "rnn/recurrent_kernel", "rnn/bias",
         "logits/kernel", "logits/bias"]
ckpt = write_tf1_checkpoint({n: data[n] for n in NAMES}, tempfile.mkdtemp())

start(logdir)
graph = tf.Graph()
with graph.as_default():
    x = v1.placeholder(tf.int32, (None, 5))
    y = v1.placeholder(tf.int32, (None,))
    emb = v1.get_variable("embedding/embeddings", (8, 4))  # AT:var
    wx = v1.get_variable("rnn/kernel", (4, 5))  # AT:var
    wh = v1.get_variable("rnn/recurrent_kernel", (5, 5))  # AT:var
    b = v1.get_variable("rnn/bias", (5,))  # AT:var
    k2 = v1.get_variable("logits/kernel", (5, 3))  # AT:var
    b2 = v1.get_variable("logits/bias", (3,))  # AT:var
    tvars = [emb, wx, wh, b, k2, b2]
    embedded = tf.nn.embedding_lookup(emb, x)  # AT:embedding
    h = tf.zeros([tf.shape(x)[0], 5])
    for t in range(5):
        h = tf.tanh(tf.matmul(embedded[:, t, :], wx) + b + tf.matmul(h, wh))  # AT:rnn
    logits = tf.nn.bias_add(tf.matmul(h, k2), b2)  # AT:logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss  # noqa: E501
    opt = v1.train.MomentumOptimizer(0.1, momentum=0.9)  # AT:opt
    grads_and_vars = opt.compute_gradients(loss, var_list=tvars)  # AT:grads
    train_op = opt.apply_gradients(grads_and_vars)  # AT:update
    fetch = {"loss": loss, "total_loss": loss,
             "layer_output": {"embedding": embedded, "rnn": h, "logits": logits},
             "gradient": dict(zip(NAMES, (g for g, _ in grads_and_vars), strict=True))}
    reader = tf.train.load_checkpoint(ckpt)
    restore = [v.assign(reader.get_tensor(n)) for v, n in zip(tvars, NAMES, strict=True)]  # AT:restore  # noqa: E501

with v1.Session(graph=graph) as sess:
    sess.run(v1.global_variables_initializer())
    sess.run(restore)
    trace = []
    for _step in range(STEPS):
        before = dict(zip(NAMES, sess.run(tvars), strict=True)) if logdir == "-" else None
        logs, _ = sess.run([fetch, train_op], {x: data["x"], y: data["y"]})
        if logdir == "-":
            logs.update(variable=before, learning_rate=0.1, applied_gradient=logs["gradient"],
                        variable_after=dict(zip(NAMES, sess.run(tvars), strict=True)))
            trace.append(logs)
stop(logdir)
if logdir == "-":
    emit(trace)
