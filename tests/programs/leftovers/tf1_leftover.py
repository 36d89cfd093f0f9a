"""common.py's regression in TF1 (graph, Session), three steps (tests/compare/test_leftovers.py):

- OPT `adamax`: AdaMax as tf.contrib.opt.AdaMaxOptimizer had it (the fused ApplyAdaMax
  kernel; TF 2 no longer ships contrib), rate 0.05; `adam`: AdamOptimizer(0.05,
  epsilon=1e-8) (the fused ApplyAdam kernel, its rate an input); `momentum`:
  MomentumOptimizer(0.1, 0.9); `nesterov`: use_nesterov=True; `sgd`: GradientDescentOptimizer(0.1);
- AVG `none`; `ema`: tf.train.ExponentialMovingAverage(0.9) of the weights applied after the
  update under a control dependency (it subtracts: shadow -= (shadow - w)(1 - decay)).

Prints `trace {json}` last: per step the loss, the weights and the averages (see common.py).

python tf1_leftover.py OPT AVG
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INIT, NAMES, RATES, X, Y

tf.compat.v1.disable_eager_execution()
OPT, AVG = sys.argv[1:3]


class AdaMaxOptimizer(tf.compat.v1.train.Optimizer):
    """tf.contrib.opt.AdaMaxOptimizer: the fused kernel, beta1's power a non-slot variable."""

    def __init__(self, learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8):
        super().__init__(False, "AdaMax")
        self._lr, self._beta1, self._beta2, self._epsilon = learning_rate, beta1, beta2, epsilon

    def _create_slots(self, var_list):
        first = min(var_list, key=lambda v: v.name)
        self._create_non_slot_variable(initial_value=self._beta1, name="beta1_power",
                                       colocate_with=first)
        for v in var_list:
            self._zeros_slot(v, "m", self._name)
            self._zeros_slot(v, "v", self._name)

    def _power(self):
        return self._get_non_slot_variable("beta1_power", graph=tf.compat.v1.get_default_graph())

    def _resource_apply_dense(self, grad, var):
        return tf.raw_ops.ResourceApplyAdaMax(  # AT:update
            var=var.handle, m=self.get_slot(var, "m").handle, v=self.get_slot(var, "v").handle,
            beta1_power=self._power(), lr=self._lr, beta1=self._beta1, beta2=self._beta2,
            epsilon=self._epsilon, grad=grad)

    def _finish(self, update_ops, name_scope):
        with tf.control_dependencies(update_ops):
            power = self._power()
            bump = power.assign(power * self._beta1)
        return tf.group(*update_ops, bump, name=name_scope)


W = [tf.compat.v1.get_variable(n, initializer=v) for n, v in zip(NAMES, INIT, strict=True)]
x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
pred = tf.matmul(tf.tanh(tf.matmul(x, W[0]) + W[1]), W[2]) + W[3]
loss = tf.reduce_mean(tf.square(pred - y))  # AT:loss
if OPT == "adamax":
    optimizer = AdaMaxOptimizer(RATES[OPT])  # AT:optimizer
elif OPT == "adam":
    optimizer = tf.compat.v1.train.AdamOptimizer(RATES[OPT], epsilon=1e-8)  # AT:optimizer
elif OPT == "momentum":
    optimizer = tf.compat.v1.train.MomentumOptimizer(RATES[OPT], 0.9)  # AT:optimizer
elif OPT == "nesterov":
    optimizer = tf.compat.v1.train.MomentumOptimizer(  # AT:optimizer
        RATES[OPT], 0.9, use_nesterov=True)
else:
    optimizer = tf.compat.v1.train.GradientDescentOptimizer(RATES[OPT])  # AT:optimizer
train = optimizer.minimize(loss)  # AT:update
average = None
if AVG == "ema":
    ema = tf.compat.v1.train.ExponentialMovingAverage(0.9)
    with tf.control_dependencies([train]):
        train = ema.apply(W)  # AT:average
    average = [ema.average(w) for w in W]

trace = []
with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {x: X, y: Y})
        print("step", step, "loss", value)
        trace.append({"loss": float(value),
                      "weights": [np.asarray(a).tolist() for a in sess.run(W)],
                      "averages": ([np.asarray(a).tolist() for a in sess.run(average)]
                                   if average else None)})
print("trace " + json.dumps(trace))
