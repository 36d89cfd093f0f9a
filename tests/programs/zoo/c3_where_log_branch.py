"""An entropy bonus with a "safe" log behind tf.where: the unselected branch is still -inf.

An exploration bonus adds the entropy -sum(p log p) of a policy. To avoid log(0) the user
writes tf.where(p > 0, p * log(p), 0). tf.where computes both branches: log(0) = -inf and
0 * -inf = NaN are still computed (and the gradient through the unselected branch is NaN).
"""
# EXPECT origin_op: Log
# EXPECT cause: zero
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(6)
states = rng.randn(16, 4).astype("float32")
actions = rng.randint(0, 3, 16)
advantages = rng.randn(16).astype("float32")
w = tf.Variable(rng.randn(4, 3).astype("float32") * 30.0)  # a very confident policy
opt = tf.keras.optimizers.SGD(0.01)


@tf.function
def train_step(s, a, adv):
    with tf.GradientTape() as tape:
        p = tf.nn.softmax(tf.matmul(s, w))
        logp_a = tf.math.log(tf.gather(p, a, batch_dims=1) + 1e-8)
        plogp = tf.where(p > 0, p * tf.math.log(p), tf.zeros_like(p))  # FIX
        entropy = -tf.reduce_sum(plogp, axis=1)
        loss = -tf.reduce_mean(logp_a * adv + 0.01 * entropy)
    opt.apply_gradients([(tape.gradient(loss, w), w)])
    return loss


for step in range(3):
    print("step", step, "loss", float(train_step(states, actions, advantages)))

tf.debugging.experimental.disable_dump_debug_info()
