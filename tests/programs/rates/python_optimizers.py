"""tf1_optimizers.py's net trained eagerly in TF2, the learning rate a plain Python float
that no op records (it is folded into the update): Momentum, Adam or RMSprop
- FORM "hand": written by hand with `tf.Variable` slots, TF1's arithmetic (Adam's
  bias-corrected rate lr_t a Python float too: the step count is Python's);
- FORM "scaled": RMSprop by hand with the preconditioner computed first,
  `w.assign_sub(lr / tf.sqrt(ms + eps) * g)` (a product of the gradient and a tensor);
- FORM "v1": `tf.compat.v1.train`'s optimizer run eagerly (its fused apply op is given the
  float as a tensor no op made).

python python_optimizers.py OPT FORM LR
"""
import sys

import numpy as np
import tensorflow as tf

name, form, lr = sys.argv[1], sys.argv[2], float(sys.argv[3])
rng = np.random.RandomState(0)
x = tf.constant(rng.normal(size=(8, 4)).astype(np.float32))
y = tf.constant(rng.normal(size=(8, 1)).astype(np.float32))
init = {"w1": rng.normal(size=(4, 3)), "b1": rng.normal(size=(3,)) * 0.1,
        "w2": rng.normal(size=(3, 1)), "b2": np.array([0.3])}
weights = [tf.Variable(a.astype(np.float32), name=k) for k, a in init.items()]
# TF1's RMSProp starts its mean square at ones, its other slots start at zeros
start = tf.ones_like if name == "rmsprop" else tf.zeros_like
slots = [[tf.Variable(start(w)) for w in weights] for _ in range(2)]
v1 = {"momentum": lambda: tf.compat.v1.train.MomentumOptimizer(lr, 0.9),
      "adam": lambda: tf.compat.v1.train.AdamOptimizer(lr, 0.9, 0.999, 1e-7),
      "rmsprop": lambda: tf.compat.v1.train.RMSPropOptimizer(lr, 0.9, 0.0, 1e-7)}
optimizer = v1[name]() if form == "v1" else None

for step in range(3):
    with tf.GradientTape() as tape:
        h = tf.tanh(tf.matmul(x, weights[0]) + weights[1])
        loss = tf.reduce_mean(tf.square(tf.matmul(h, weights[2]) + weights[3] - y))
    grads = tape.gradient(loss, weights)
    if optimizer is not None:
        optimizer.apply_gradients(zip(grads, weights, strict=True))
    elif name == "momentum":
        for w, g, m in zip(weights, grads, slots[0], strict=True):
            m.assign(0.9 * m + g)
            w.assign_sub(lr * m)
    elif name == "adam":
        t = step + 1
        lr_t = lr * (1 - 0.999 ** t) ** 0.5 / (1 - 0.9 ** t)
        for w, g, m, v in zip(weights, grads, slots[0], slots[1], strict=True):
            m.assign(0.9 * m + 0.1 * g)
            v.assign(0.999 * v + 0.001 * tf.square(g))
            w.assign_sub(lr_t * m / (tf.sqrt(v) + 1e-7))
    else:
        for w, g, ms in zip(weights, grads, slots[0], strict=True):
            ms.assign(0.9 * ms + 0.1 * tf.square(g))
            if form == "scaled":
                w.assign_sub(lr / tf.sqrt(ms + 1e-7) * g)
            else:
                w.assign_sub(lr * g / tf.sqrt(ms + 1e-7))
    print(f"step {step} loss {float(loss):.6f}")
