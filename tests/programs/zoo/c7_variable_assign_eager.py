"""A variable that already holds NaN: pretrained embeddings loaded with a corrupt row.

The user initialises an embedding table from "pretrained" vectors (here made with numpy;
one row is NaN, as after a bad export) by assigning them eagerly to the tf.Variable. The
tf.function model then reads the table: the NaN was written long before it is read.
"""
# EXPECT origin_op: ResourceGather|ReadVariableOp
# EXPECT cause: variable
# EXPECT kind: variable
# EXPECT write_op: AssignVariableOp

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(21)
vocab, dim = 50, 8
pretrained = rng.randn(vocab, dim).astype("float32")
pretrained[7] = np.nan  # a corrupt row in the export

embeddings = tf.Variable(tf.random.normal([vocab, dim], seed=21))
dense = tf.Variable(rng.randn(dim, 2).astype("float32"))
embeddings.assign(pretrained)  # FIX


@tf.function
def predict(token_ids):
    vectors = tf.nn.embedding_lookup(embeddings, token_ids)
    return tf.nn.softmax(tf.matmul(tf.reduce_mean(vectors, axis=1), dense))


sentences = rng.randint(0, vocab, (6, 10))
sentences[3, 4] = 7
print(predict(sentences).numpy())

tf.debugging.experimental.disable_dump_debug_info()
