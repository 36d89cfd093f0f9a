"""tf1_conv.py in Keras, trained eagerly: a `Conv2D(2, 3, activation="relu")` given TF1's
weights, `SGD(0.1, momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)` (the bias excluded from
the decay: with one, the kernel's update differs from TF1's from step 0, the bias's does
not), a `GradientTape` step, 3 steps.

python tf2_conv_eager.py MOMENTUM [WEIGHT_DECAY]
"""
import sys

import numpy as np
import tensorflow as tf

momentum = float(sys.argv[1])
decay = float(sys.argv[2]) if len(sys.argv) > 2 else None
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(4, 5, 5, 1)).astype(np.float32))
y = tf.constant(rng.normal(size=(4, 2)).astype(np.float32))
MEAN = tf.constant(np.tile(np.eye(2, dtype=np.float32), (9, 1)) / 9)  # each filter's mean
conv = tf.keras.layers.Conv2D(2, 3, activation="relu")
conv.build((None, 5, 5, 1))
conv.set_weights([rng.normal(size=(3, 3, 1, 2)).astype(np.float32),
                  np.array([0.1, -0.2], np.float32)])
optimizer = tf.keras.optimizers.SGD(0.1, momentum=momentum, weight_decay=decay)
optimizer.exclude_from_weight_decay(var_names=["bias"])

for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.reshape(conv(x), [4, 18]), MEAN) - y))
    grads = tape.gradient(loss, conv.trainable_variables)
    optimizer.apply_gradients(zip(grads, conv.trainable_variables, strict=True))
    print(f"step {step} loss {float(loss):.6f}")
