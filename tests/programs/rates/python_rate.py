"""Gradient descent written by hand in eager TF2, its learning rate a Python float: an
inverse-time decay 0.5 / (1 + 0.5 * (step + OFFSET)), applied as `w.assign_sub(lr * g)`
(FORM "sub") or `w.assign(w - lr * g)` (FORM "assign"); with MOMENTUM > 0 the step applies a
velocity `m = MOMENTUM * m + g` instead of the gradient (kept in a Python list). tfdbg records
the product and the gradient, never the rate (a Python number is no op).

python python_rate.py OFFSET MOMENTUM FORM
"""
import sys

import numpy as np
import tensorflow as tf

offset, momentum, form = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 2)).astype(np.float32))
w = tf.Variable(rng.normal(size=(4, 2)).astype(np.float32))
b = tf.Variable(rng.normal(size=(2,)).astype(np.float32))
velocity = [0.0, 0.0]

for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
    grads = tape.gradient(loss, [w, b])
    lr = 0.5 / (1.0 + 0.5 * (step + offset))
    for i, (v, g) in enumerate(zip((w, b), grads, strict=True)):
        if momentum:
            velocity[i] = momentum * velocity[i] + g
            g = velocity[i]
        if form == "sub":
            v.assign_sub(lr * g)
        else:
            v.assign(v - lr * g)
    print(f"step {step} lr {lr:.4f} loss {float(loss):.6f}")
