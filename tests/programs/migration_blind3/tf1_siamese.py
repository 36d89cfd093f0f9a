"""A Siamese network: one tower (4 -> 6 tanh -> 3 tanh) embeds both inputs of a pair with the
same weights (variable_scope reuse), the contrastive loss on the Euclidean distance of the two
embeddings (pairs alike, y = 1, pulled together; the others pushed beyond a margin of 1.5),
trained by AdaMax as tf.contrib.opt.AdaMaxOptimizer had it (learning rate 0.05; TF1,
Session). Weights from the arrays an earlier run saved.

python tf1_siamese.py DATA_DIR     (DATA_DIR/siamese.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

MARGIN = 1.5
saved = dict(np.load(os.path.join(sys.argv[1], "siamese.npz")))
names = ["hidden/kernel", "hidden/bias", "embed/kernel", "embed/bias"]


class AdaMaxOptimizer(tf.compat.v1.train.Optimizer):
    """AdaMax (Kingma & Ba, section 7.1), copied from tf.contrib.opt, which TF 2 no longer
    ships: the fused ApplyAdaMax kernel, beta1's power kept in a non-slot variable."""

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8, name="AdaMax"):
        super().__init__(False, name)
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _create_slots(self, var_list):
        first_var = min(var_list, key=lambda v: v.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power", colocate_with=first_var)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _beta1_power(self):
        return self._get_non_slot_variable("beta1_power", graph=tf.compat.v1.get_default_graph())

    def _resource_apply_dense(self, grad, var):
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        return tf.raw_ops.ResourceApplyAdaMax(  # AT:update
            var=var.handle, m=m.handle, v=v.handle, beta1_power=self._beta1_power(), lr=self._lr,
            beta1=self._beta1, beta2=self._beta2, epsilon=self._epsilon, grad=grad)

    def _finish(self, update_ops, name_scope):
        with tf.control_dependencies(update_ops):
            beta1_power = self._beta1_power()
            update_beta1 = beta1_power.assign(beta1_power * self._beta1)
        return tf.group(*update_ops + [update_beta1], name=name_scope)


def tower(x):
    """The embedding network; both inputs go through the same variables."""
    with tf.compat.v1.variable_scope("tower", reuse=tf.compat.v1.AUTO_REUSE):
        W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var
        hidden = tf.tanh(tf.matmul(x, W["hidden/kernel"]) + W["hidden/bias"])  # AT:hidden
        return tf.tanh(tf.matmul(hidden, W["embed/kernel"]) + W["embed/bias"])  # AT:embed


x1 = tf.compat.v1.placeholder(tf.float32, [None, 4])
x2 = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
distance = tf.norm(tower(x1) - tower(x2), axis=1, keepdims=True)  # AT:distance
loss = tf.reduce_mean(y * tf.square(distance) + (1.0 - y) * tf.square(tf.maximum(MARGIN - distance, 0.0))) / 2.0  # AT:loss

optimizer = AdaMaxOptimizer(learning_rate=0.05)  # AT:opt
train_op = optimizer.minimize(loss)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    feed = {x1: saved["x1"], x2: saved["x2"], y: saved["y"]}
    losses = []
    for step in range(3):
        value, _ = sess.run([loss, train_op], feed)
        print("step", step, "loss", value)
        losses.append(float(value))
    if os.environ.get("BLIND3_TRACE"):
        with tf.compat.v1.variable_scope("tower", reuse=True):
            final = sess.run({n: tf.compat.v1.get_variable(n) for n in names})
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
