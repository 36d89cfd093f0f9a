"""CTC loss recorded in FULL_TENSOR: the integer labels are recorded, so the diagnosis can
say which transcript does not fit.

Three utterances of 8 frames each; the third transcript, "hello" as [8, 5, 12, 12, 15] plus
three more letters, has 8 labels with one repeated pair ("ll"), so it needs 8 frames plus
one blank between the l's — 8 + 1 = 9 > 8 frames: no alignment, loss +inf. Example 2
(counting from 0) is the culprit; the others fit.
"""
# EXPECT origin_op: CTCLoss*
# EXPECT cause: example 2, 9
# EXPECT kind: forward
# EXPECT absent: not recorded (not recorded|already held

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_TENSOR", circular_buffer_size=-1)

rng = np.random.RandomState(21)
logits = tf.constant(rng.randn(8, 3, 28).astype(np.float32))  # time, batch, classes
transcripts = [[3, 1, 20], [4, 15, 7, 19], [8, 5, 12, 12, 15, 23, 15, 18]]
dense = np.zeros((3, 8), np.int32)
for i, t in enumerate(transcripts):
    dense[i, :len(t)] = t
labels = tf.sparse.from_dense(tf.constant(dense))


@tf.function
def ctc(labels, logits):
    frames = tf.fill([3], 8)
    return tf.nn.ctc_loss(labels, logits, None, frames, blank_index=-1)  # FIX


print("loss", ctc(labels, logits).numpy())
tf.debugging.experimental.disable_dump_debug_info()
