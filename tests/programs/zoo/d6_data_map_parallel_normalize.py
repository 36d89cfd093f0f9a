"""Per-clip standardisation in a parallel tf.data map: a silent clip has std 0.

Audio clips are standardised one by one in the input pipeline, (clip - mean) / std, in a
map function run with num_parallel_calls=AUTOTUNE, then batched, prefetched and given to
model.fit. One clip is digital silence (all zeros): its std is 0 and 0 / 0 = NaN. The line
to change is in the map function, not in the model.
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
tf.keras.utils.set_random_seed(46)

rng = np.random.RandomState(46)
clips = (rng.randn(32, 64) * 0.1).astype("float32")
clips[11] = 0.0  # digital silence
labels = rng.randint(0, 3, 32)


def standardize(clip, label):
    clip = (clip - tf.reduce_mean(clip)) / tf.math.reduce_std(clip)  # FIX
    return clip, label


ds = (tf.data.Dataset.from_tensor_slices((clips, labels))
      .map(standardize, num_parallel_calls=tf.data.AUTOTUNE)
      .batch(8)
      .prefetch(tf.data.AUTOTUNE))
model = tf.keras.Sequential([tf.keras.layers.Input((64,)), tf.keras.layers.Dense(16, "relu"),
                             tf.keras.layers.Dense(3)])
model.compile(optimizer="adam",
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(ds, epochs=1, verbose=0)

tf.debugging.experimental.disable_dump_debug_info()
