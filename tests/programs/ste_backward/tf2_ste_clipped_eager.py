"""tf1_ste.py in TF2, trained eagerly, the straight-through estimator a `tf.custom_gradient`
that passes the gradient only where |h| <= 1 (the "clipped" estimator of a hardtanh, copied
from a binarized-network example) where TF1 passed it everywhere; tf.Variables, SGD(0.1)
from Keras.

python tf2_ste_clipped_eager.py
"""
import json
import os

import tensorflow as tf

from ste_data import arrays


@tf.custom_gradient
def quantize(h):
    def grad(dy):
        return dy * tf.cast(tf.abs(h) <= 1.0, dy.dtype)  # BUG:clipped
    return tf.round(h * 2.0) / 2.0, grad


d = arrays()
w1, b1 = tf.Variable(d["w1"], name="w1"), tf.Variable(d["b1"], name="b1")
w2, b2 = tf.Variable(d["w2"], name="w2"), tf.Variable(d["b2"], name="b2")
variables = [w1, b1, w2, b2]
optimizer = tf.keras.optimizers.SGD(learning_rate=0.1)

losses = []
for step in range(3):
    with tf.GradientTape() as tape:
        h = tf.matmul(d["x"], w1) + b1
        q = quantize(h)
        out = tf.matmul(q, w2) + b2
        loss = tf.reduce_mean(tf.square(out - d["y"]))
    grads = tape.gradient(loss, variables)  # TAPE
    optimizer.apply_gradients(zip(grads, variables))  # APPLY
    print("step", step, "loss", float(loss))
    losses.append(float(loss))
if os.environ.get("STE_TRACE"):
    print("trace", json.dumps({"loss": losses, "weights": {
        k: v.numpy().tolist() for k, v in zip(("w1", "b1", "w2", "b2"), variables)}}))
