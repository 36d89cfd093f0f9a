"""An imbalanced binary classifier (6 -> 8 PReLU -> 1 logit): the PReLU written out with a
trainable slope per unit (initial 0.25), the weighted cross-entropy on the logits (positives
weighted 3), trained by Nadam as tf.contrib.opt.NadamOptimizer had it (Adam's fused kernel
with Nesterov momentum; learning rate 0.01; TF1, Session). Weights from the arrays an
earlier run saved.

python tf1_nadam.py DATA_DIR     (DATA_DIR/nadam.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

POS_WEIGHT = 3.0
saved = dict(np.load(os.path.join(sys.argv[1], "nadam.npz")))
names = ["hidden/kernel", "hidden/bias", "prelu/alpha", "out/kernel", "out/bias"]


class NadamOptimizer(tf.compat.v1.train.AdamOptimizer):
    """Nadam (Dozat 2016), copied from tf.contrib.opt, which TF 2 no longer ships: Adam's
    ApplyAdam kernel with use_nesterov=True."""

    def _resource_apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        beta1_power, beta2_power = self._get_beta_accumulators()
        return tf.raw_ops.ResourceApplyAdam(  # AT:update
            var=var.handle, m=m.handle, v=v.handle, beta1_power=beta1_power, beta2_power=beta2_power,
            lr=self._lr_t, beta1=self._beta1_t, beta2=self._beta2_t, epsilon=self._epsilon_t,
            grad=grad, use_nesterov=True)


W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 6])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
pre = tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"]  # AT:hidden
hidden = tf.nn.relu(pre) - W["prelu/alpha"] * tf.nn.relu(-pre)  # AT:prelu
logits = tf.matmul(hidden, W["out/kernel"]) + W["out/bias"]  # AT:logits
loss = tf.reduce_mean(tf.nn.weighted_cross_entropy_with_logits(labels=y, logits=logits, pos_weight=POS_WEIGHT))  # AT:loss

optimizer = NadamOptimizer(learning_rate=0.01)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], {x: saved["x"], y: saved["y"]})
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND4_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
