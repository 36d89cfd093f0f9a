"""A sequence log-likelihood masked twice: -inf at padding, then 0 × -inf = NaN.

A language-model loss sets the log-probabilities of padding positions to -inf on purpose
(to make sure they can never be picked), then averages with a 0/1 padding mask by
multiplication. 0 × -inf is NaN: multiplying by a mask does not remove an infinity.
"""
# EXPECT origin_op: Mul
# EXPECT cause: −∞|-inf, 0 ×|0 *|zero
# EXPECT kind: forward
# EXPECT deliberate: Const

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(19)
vocab, length = 7, 6
logits = tf.Variable(rng.randn(2, length, vocab).astype("float32"))
targets = rng.randint(0, vocab, (2, length))
valid = np.array([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 1]], dtype="float32")


@tf.function
def sequence_nll(targets, valid):
    log_probs = tf.nn.log_softmax(logits, axis=-1)
    token_logp = tf.gather(log_probs, targets, batch_dims=2)
    token_logp = tf.where(valid > 0, token_logp, tf.fill(tf.shape(token_logp), -np.inf))
    total = tf.reduce_sum(token_logp * valid)  # FIX
    return -total / tf.reduce_sum(valid)


for step in range(2):
    print("step", step, "nll", float(sequence_nll(targets, valid)))

tf.debugging.experimental.disable_dump_debug_info()
