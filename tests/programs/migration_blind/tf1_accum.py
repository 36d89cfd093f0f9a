"""An MLP (4 -> 6 relu -> 3) whose batch of 8 does not fit at once: the gradients of two
micro-batches of 4 are accumulated in non-trainable variables (zeroed, added to, then applied
divided by 2), each micro-batch's loss the mean cross-entropy plus an L1 + L2 penalty (1e-3
each) on both kernels; momentum 0.9 at learning rate 0.1 (TF1, Session). Weights from the
arrays an earlier run saved.

python tf1_accum.py DATA_DIR     (DATA_DIR/accum.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "accum.npz")))
MICRO_BATCHES = 2

x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.int32, [None])
names = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

hidden = tf.nn.relu(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
logits = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:logits
data_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))  # AT:loss
penalty = tf.add_n([1e-3 * tf.reduce_sum(tf.abs(W[k])) + 1e-3 * tf.reduce_sum(tf.square(W[k])) for k in ("hidden/kernel", "out/kernel")])  # AT:reg
loss = data_loss + penalty  # AT:total

tvars = [W[n] for n in names]
accumulators = [tf.Variable(tf.zeros(v.shape), trainable=False) for v in tvars]  # AT:accum
zero_op = tf.group(*[a.assign(tf.zeros_like(a)) for a in accumulators])  # AT:zero
grads = tf.gradients(loss, tvars)  # AT:grads
accumulate_op = tf.group(*[a.assign_add(g) for a, g in zip(accumulators, grads)])  # AT:accum
optimizer = tf.compat.v1.train.MomentumOptimizer(0.1, momentum=0.9)  # AT:opt
train_op = optimizer.apply_gradients([(a / MICRO_BATCHES, v) for a, v in zip(accumulators, tvars)])  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        sess.run(zero_op)
        step_losses = []
        for i in range(MICRO_BATCHES):
            batch = slice(4 * i, 4 * i + 4)
            value, _ = sess.run([loss, accumulate_op], {x: saved["x"][batch], y: saved["y"][batch]})
            step_losses.append(float(value))
        sess.run(train_op)
        print("step %d loss %.6f" % (step, np.mean(step_losses)))
        losses.append(float(np.mean(step_losses)))
    if os.environ.get("BLIND_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
