"""A hand-written Adam in float16: epsilon 1e-8 rounds to 0, and 0/0 is NaN.

The user writes the Adam update by hand and keeps the moment slots in the parameters' dtype,
float16. Adam's customary epsilon 1e-8 is below float16's smallest subnormal (6e-8) and
becomes exactly 0. A weight whose gradient is exactly zero (a dead ReLU unit) has m = v = 0,
and m / (sqrt(v) + eps) = 0 / 0 = NaN.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: float16, zero|0/0
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(13)
x = rng.rand(32, 4).astype("float16")
y = rng.rand(32, 1).astype("float16")
w1_init = (rng.randn(4, 6) * 0.5).astype("float16")
w1_init[:, 5] = -1.0  # this hidden unit never fires
w1 = tf.Variable(w1_init)
w2 = tf.Variable((rng.randn(6, 1) * 0.5).astype("float16"))
params = [w1, w2]
m = [tf.Variable(tf.zeros_like(p)) for p in params]
v = [tf.Variable(tf.zeros_like(p)) for p in params]
lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2)
        loss = tf.reduce_mean(tf.square(pred - y))
    grads = tape.gradient(loss, params)
    for p, g, m_p, v_p in zip(params, grads, m, v, strict=True):
        m_p.assign(beta1 * m_p + (1 - beta1) * g)
        v_p.assign(beta2 * v_p + (1 - beta2) * tf.square(g))
        p.assign_sub(lr * m_p / (tf.sqrt(v_p) + eps))  # FIX
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(x, y)))

tf.debugging.experimental.disable_dump_debug_info()
