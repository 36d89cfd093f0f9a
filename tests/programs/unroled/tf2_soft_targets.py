"""tf1_soft_targets.py in TF2: the soft targets computed once, eagerly, before training (not
in the step), the student's logits / T in a `tf.function` step — whose division a
structural pairing could take for A's teacher / T, the first division in A's graph.

python tf2_soft_targets.py T_SOFT
"""
import sys

import numpy as np
import tensorflow as tf

T, T_SOFT = 2.0, float(sys.argv[1])
rng = np.random.RandomState(0)
w = tf.Variable(rng.normal(size=(4, 3)).astype(np.float32), name="w")
b = tf.Variable(np.zeros(3, np.float32), name="b")
x = rng.normal(size=(8, 4)).astype(np.float32)
teacher = 3 * rng.normal(size=(8, 3)).astype(np.float32)
soft = tf.nn.softmax(teacher / T_SOFT)
optimizer = tf.keras.optimizers.SGD(0.5)


@tf.function
def train_step(x, soft):
    with tf.GradientTape() as tape:
        logits = tf.matmul(x, w) + b
        xent = tf.nn.softmax_cross_entropy_with_logits(labels=soft, logits=logits / T)
        loss = T * T * tf.reduce_mean(xent)
    grads = tape.gradient(loss, [w, b])
    optimizer.apply_gradients(zip(grads, [w, b], strict=True))
    return loss


for step in range(3):
    print(f"step {step} loss {float(train_step(x, soft)):.6f}")
