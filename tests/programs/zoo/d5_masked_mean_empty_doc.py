"""Masked mean pooling over padded token ids: an empty document divides 0 by 0.

A bag-of-embeddings classifier averages the embeddings of the real tokens of each padded
document: sum(emb * mask) / sum(mask). One review was empty after tokenisation, so its row
is all padding: the token count is 0 and the mean is 0 / 0 = NaN.
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)
tf.keras.utils.set_random_seed(45)

rng = np.random.RandomState(45)
lengths = rng.randint(1, 10, 24)
lengths[5] = 0  # an empty review
tokens = np.zeros((24, 10), "int32")  # 0 is the padding id
for i, n in enumerate(lengths):
    tokens[i, :n] = rng.randint(1, 50, n)
labels = rng.randint(0, 2, 24).astype("float32")

embed = tf.keras.layers.Embedding(50, 8)
head = tf.keras.layers.Dense(1)
opt = tf.keras.optimizers.Adam(1e-2)


def masked_mean(emb, token_ids):
    mask = tf.cast(token_ids != 0, emb.dtype)
    total = tf.reduce_sum(emb * mask[:, :, None], axis=1)
    return total / tf.reduce_sum(mask, axis=1, keepdims=True)  # FIX


@tf.function
def train_step(token_ids, y):
    with tf.GradientTape() as tape:
        pooled = masked_mean(embed(token_ids), token_ids)
        logits = tf.squeeze(head(pooled), -1)
        loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(y, logits))
    variables = embed.trainable_variables + head.trainable_variables
    opt.apply_gradients(zip(tape.gradient(loss, variables), variables, strict=True))
    return loss


for step in range(2):
    print("step", step, "loss", float(train_step(tokens, labels)))

tf.debugging.experimental.disable_dump_debug_info()
