"""A 4 -> 3 tanh -> 1 regression trained by gradient descent at 0.1 for three steps (TF1,
Session), keeping state the optimizer does not write (tests/compare/test_state_between_steps.py):

- `ema`: an exponential moving average of the weights (decay 0.9, num_updates the global
  step), applied after each update under a control dependency;
- `teacher`: a copy of the weights (`trainable=False`) whose predictions the loss pulls the
  model's towards (0.5 × their mean squared difference), given the weights by a
  `Session.run` of its own after every second step.

python tf1_state.py ema|teacher
"""
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

MODE = sys.argv[1]
rng = np.random.RandomState(7)
X, Y = rng.randn(8, 4).astype("float32"), rng.randn(8, 1).astype("float32")
INIT = {"hidden/kernel": 0.5 * rng.randn(4, 3), "hidden/bias": np.full(3, 0.1),
        "out/kernel": 0.5 * rng.randn(3, 1), "out/bias": np.zeros(1)}
W = {n: tf.compat.v1.get_variable(n, initializer=v.astype("float32")) for n, v in INIT.items()}


def net(x, w):
    return tf.matmul(tf.tanh(tf.matmul(x, w["hidden/kernel"]) + w["hidden/bias"]),
                     w["out/kernel"]) + w["out/bias"]


x = tf.compat.v1.placeholder(tf.float32, [None, 4])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
pred = net(x, W)
loss = tf.reduce_mean(tf.square(pred - y))
if MODE == "teacher":
    T = {n: tf.compat.v1.get_variable("teacher/" + n, initializer=v.astype("float32"),
                                      trainable=False) for n, v in INIT.items()}
    loss = loss + 0.5 * tf.reduce_mean(tf.square(net(x, T) - pred))
    sync = tf.group(*[T[n].assign(W[n]) for n in INIT])  # the teacher's copy
global_step = tf.compat.v1.train.get_or_create_global_step()
train = tf.compat.v1.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=global_step)
if MODE == "ema":
    ema = tf.compat.v1.train.ExponentialMovingAverage(0.9, num_updates=global_step)
    with tf.control_dependencies([train]):
        train = ema.apply(list(W.values()))  # the averages

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    for step in range(3):
        value, _ = sess.run([loss, train], {x: X, y: Y})
        if MODE == "teacher" and (step + 1) % 2 == 0:
            sess.run(sync)
        print("step", step, "loss", value)
