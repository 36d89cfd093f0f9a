"""TF1 side of the dense pairs: a 5-6-3 MLP in a tf.Graph + Session, weights restored.

Usage: python dense_tf1.py LOGDIR --variant V     (LOGDIR '-': print the trace, no dump)

V  sgd                plain gradient descent, lr 0.1
   nesterov           Momentum(0.1, 0.9, use_nesterov=True)
   adam_dropout       Adam(0.01, epsilon=1e-3); dropout after the hidden layer with keep_prob
                      fed 1.0 (the debug run turns randomness off, as the guide says)
   rmsprop            RMSProp(0.01, decay=0.9) (TF1 starts its mean square at 1)
   adagrad_clipvalue  Adagrad(0.1) on gradients clipped to ±CLIP_VALUE in user code
   l2clip             SGD on exponential_decay(0.1, 2, 0.5, staircase=True); loss +
                      0.01 * sum of tf.nn.l2_loss(kernels) (half the sum of squares);
                      gradients clipped by global norm CLIP_NORM in user code
   adamw              Adam(0.01) with decoupled weight decay written by hand: each variable
                      shrinks by WEIGHT_DECAY * v after the gradients, before the Adam update

Written as a TF1 user wrote it: get_variable + matmul (tf.compat.v1.layers is gone in TF 2.21),
the variables initialized by Glorot draws, then overwritten with the restored weights by
`assign` in the initialization step; the guide's logged tensors fetched with each step.
Marked lines: `# AT:<name>`.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import tensorflow as tf
from corpus_common import (
    CLIP_NORM,
    CLIP_VALUE,
    STEPS,
    WEIGHT_DECAY,
    dense_data,
    emit,
    parse,
    start,
    stop,
)

VARIANTS = ("sgd", "nesterov", "adam_dropout", "rmsprop", "adagrad_clipvalue", "l2clip",
            "adamw")
logdir, variant = parse(VARIANTS)
start(logdir)
data = dense_data()
v1 = tf.compat.v1

graph = tf.Graph()
with graph.as_default():
    x = v1.placeholder(tf.float32, (None, 5))
    y = v1.placeholder(tf.int32, (None,))
    keep_prob = v1.placeholder(tf.float32, ())
    with v1.variable_scope("hidden"):
        k1 = v1.get_variable("kernel", (5, 6))  # AT:var
        b1 = v1.get_variable("bias", (6,))  # AT:var
    with v1.variable_scope("logits"):
        k2 = v1.get_variable("kernel", (6, 3))  # AT:var
        b2 = v1.get_variable("bias", (3,))  # AT:var
    tvars = [k1, b1, k2, b2]
    names = ["hidden/kernel", "hidden/bias", "logits/kernel", "logits/bias"]

    hidden = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, k1), b1))  # AT:hidden
    layers = {"hidden": hidden}
    if variant == "adam_dropout":
        hidden = v1.nn.dropout(hidden, keep_prob=keep_prob)  # AT:dropout
        layers["dropout"] = hidden
    logits = tf.nn.bias_add(tf.matmul(hidden, k2), b2)  # AT:logits
    layers["logits"] = logits
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss  # noqa: E501
    total = loss
    fetch = {"layer_output": layers, "loss": loss}
    if variant == "l2clip":
        reg = 0.01 * (tf.nn.l2_loss(k1) + tf.nn.l2_loss(k2))  # AT:reg
        total = loss + reg  # AT:total
        fetch["regularization"] = reg
    fetch["total_loss"] = total

    global_step = v1.train.get_or_create_global_step()
    lr = 0.1  # a Python number unless a schedule makes it a tensor
    if variant == "sgd":
        opt = v1.train.GradientDescentOptimizer(0.1)  # AT:opt
    elif variant == "l2clip":
        lr = v1.train.exponential_decay(0.1, global_step, decay_steps=2, decay_rate=0.5, staircase=True)  # AT:lr  # noqa: E501
        opt = v1.train.GradientDescentOptimizer(lr)  # AT:opt
    elif variant == "nesterov":
        opt = v1.train.MomentumOptimizer(0.1, momentum=0.9, use_nesterov=True)  # AT:opt
    elif variant in ("adam_dropout", "adamw"):
        lr = 0.01
        eps = 1e-3 if variant == "adam_dropout" else 1e-8
        opt = v1.train.AdamOptimizer(0.01, epsilon=eps)  # AT:opt
    elif variant == "rmsprop":
        lr = 0.01
        opt = v1.train.RMSPropOptimizer(0.01, decay=0.9, epsilon=1e-10)  # AT:opt
    else:
        opt = v1.train.AdagradOptimizer(0.1, initial_accumulator_value=0.1)  # AT:opt
    grads_and_vars = opt.compute_gradients(total, var_list=tvars)  # AT:grads
    grads = [g for g, _ in grads_and_vars]
    applied = grads
    if variant == "l2clip":
        applied, _ = tf.clip_by_global_norm(grads, CLIP_NORM)  # AT:clip
    elif variant == "adagrad_clipvalue":
        applied = [tf.clip_by_value(g, -CLIP_VALUE, CLIP_VALUE) for g in grads]  # AT:clip
    decay = []
    if variant == "adamw":
        with tf.control_dependencies(grads):
            decay = [v.assign_sub(WEIGHT_DECAY * v) for v in tvars]  # AT:decay
    with tf.control_dependencies(decay):
        train_op = opt.apply_gradients(zip(applied, tvars, strict=True), global_step=global_step)  # AT:update  # noqa: E501
    fetch["gradient"] = dict(zip(names, grads, strict=True))
    fetch["applied_gradient"] = dict(zip(names, applied, strict=True))
    if not isinstance(lr, float):
        fetch["learning_rate"] = lr
    restore = [v.assign(data[n]) for v, n in zip(tvars, names, strict=True)]  # AT:restore

with tf.compat.v1.Session(graph=graph) as sess:
    sess.run(v1.global_variables_initializer())
    sess.run(restore)
    trace = []
    for _step in range(STEPS):
        before = dict(zip(names, sess.run(tvars), strict=True)) if logdir == "-" else None
        logs, _ = sess.run([fetch, train_op], {x: data["x"], y: data["y"], keep_prob: 1.0})
        if logdir == "-":
            logs["variable"] = before
            logs.setdefault("learning_rate", lr)
            logs["variable_after"] = dict(zip(names, sess.run(tvars), strict=True))
            trace.append(logs)
stop(logdir)
if logdir == "-":
    emit(trace)
