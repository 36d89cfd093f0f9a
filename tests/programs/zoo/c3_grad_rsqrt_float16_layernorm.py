"""A hand-written LayerNorm in float16: rsqrt is finite, its gradient overflows.

Mixed-precision style: activations are float16. A projection feeds the layer norm, which
computes rsqrt(variance + 1e-5). A padding row of near-zero embeddings projects to a
row of variance ≈ 0: rsqrt(≈1e-5) ≈ 316 fits in float16, but the derivative
-0.5 * rsqrt(v)**3 ≈ -1.6e7 is far beyond float16's 65504 and the gradient is -inf.
"""
# EXPECT origin_op: RsqrtGrad
# EXPECT forward_op: Rsqrt
# EXPECT cause: float16
# EXPECT kind: gradient

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(5)
tokens = rng.randn(4, 8).astype("float16")
tokens[2, :] *= 1e-4  # a padding row: near-zero embeddings
w_in = tf.Variable(rng.randn(8, 8).astype("float16"))
gamma = tf.Variable(tf.ones([8], tf.float16))
beta = tf.Variable(tf.zeros([8], tf.float16))
w = tf.Variable(rng.randn(8, 2).astype("float16"))


@tf.function
def train_step(tokens):
    with tf.GradientTape() as tape:
        x = tf.matmul(tokens, w_in)
        mean, variance = tf.nn.moments(x, axes=[-1], keepdims=True)
        inv = tf.math.rsqrt(variance + 1e-5)  # FIX
        h = (x - mean) * inv * gamma + beta
        loss = tf.reduce_mean(tf.square(tf.matmul(h, w)))
    grads = tape.gradient(loss, [w_in, gamma, beta, w])
    return loss, grads


for step in range(2):
    loss, grads = train_step(tf.constant(tokens))
    print("step", step, "loss", float(loss))

tf.debugging.experimental.disable_dump_debug_info()
