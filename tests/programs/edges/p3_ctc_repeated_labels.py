"""CTC loss with transcripts that do not fit the frames: repeated labels need a blank between.

A speech model emits 6 frames per utterance; one transcript has 4 labels with two repeated
pairs ("aabb" needs a, a, blank, b, blank, b … i.e. 6 frames for 4 labels with 2 repeats, 7
here). No alignment exists, CTC's loss is +inf. The integer labels cannot hold NaN — they
are the reason: the label sequence is too long for the logit length.
"""
# EXPECT origin_op: CTCLoss*
# EXPECT cause: label, align|too long|longer
# EXPECT kind: forward
# EXPECT absent: not recorded (not recorded|may have come in through|already held

import sys

import numpy as np
import tensorflow as tf

logdir = sys.argv[1]
tf.debugging.experimental.enable_dump_debug_info(
    logdir, tensor_debug_mode="FULL_HEALTH", circular_buffer_size=-1)

rng = np.random.RandomState(8)
logits = tf.constant(rng.randn(6, 2, 5).astype(np.float32))  # time, batch, classes
dense = tf.constant([[1, 2, 3, 0, 0], [1, 1, 2, 2, 3]], tf.int32)  # 0 = padding
labels = tf.sparse.from_dense(dense)


@tf.function
def ctc(labels, logits):
    frames = tf.fill([2], 6)
    return tf.nn.ctc_loss(labels, logits, None, frames, blank_index=-1)  # FIX


print("loss", ctc(labels, logits).numpy())
tf.debugging.experimental.disable_dump_debug_info()
