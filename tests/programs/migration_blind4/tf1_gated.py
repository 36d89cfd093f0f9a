"""A gated layer (5 -> 6: a linear value times a gate, the gate Keras 2's hard sigmoid
clip(0.2 z + 0.5, 0, 1) as tf.keras.backend.hard_sigmoid computed it in TF 1.x), a 6 -> 1
score, the squared hinge loss on labels mapped from 0/1 to -1/+1; plain gradient descent on
a cyclic polynomial decay (0.1 to 0.01 over 2 steps, cycle=True; TF1, Session). Weights from
the arrays an earlier run saved.

python tf1_gated.py DATA_DIR     (DATA_DIR/gated.npz: prepare_data.py)
"""
import json
import os
import sys

import numpy as np
import tensorflow as tf

tf.compat.v1.disable_eager_execution()

saved = dict(np.load(os.path.join(sys.argv[1], "gated.npz")))
names = ["value/kernel", "value/bias", "gate/kernel", "gate/bias", "out/kernel", "out/bias"]
W = {n: tf.compat.v1.get_variable(n, initializer=saved[n]) for n in names}  # AT:var

x = tf.compat.v1.placeholder(tf.float32, [None, 5])
y = tf.compat.v1.placeholder(tf.float32, [None, 1])
value = tf.matmul(x, W["value/kernel"]) + W["value/bias"]  # AT:value
gate = tf.clip_by_value(0.2 * (tf.matmul(x, W["gate/kernel"]) + W["gate/bias"]) + 0.5, 0.0, 1.0)  # AT:gate
gated = value * gate  # AT:gated
score = tf.matmul(gated, W["out/kernel"]) + W["out/bias"]  # AT:score
signs = 2.0 * y - 1.0
loss = tf.reduce_mean(tf.square(tf.maximum(1.0 - signs * score, 0.0)))  # AT:loss

global_step = tf.compat.v1.train.get_or_create_global_step()
learning_rate = tf.compat.v1.train.polynomial_decay(0.1, global_step, decay_steps=2, end_learning_rate=0.01, power=1.0, cycle=True)  # AT:lr
optimizer = tf.compat.v1.train.GradientDescentOptimizer(learning_rate)  # AT:opt
train_op = optimizer.minimize(loss, global_step=global_step)  # AT:update

with tf.compat.v1.Session() as sess:
    sess.run(tf.compat.v1.global_variables_initializer())
    losses = []
    for step in range(4):
        value_, lr, _ = sess.run([loss, learning_rate, train_op], {x: saved["x"], y: saved["y"]})
        print("step %d lr %.5f loss %.6f" % (step, lr, value_))
        losses.append(float(value_))
    if os.environ.get("BLIND4_TRACE"):
        final = sess.run(W)
        print("trace", json.dumps({"loss": losses, "weights": {n: a.tolist() for n, a in final.items()}}))
