"""An eager training loop (no tf.function) on unscaled features with SGD + momentum at a
learning rate fit for scaled ones: the training diverges.

Usage: python momentum_blowup.py

Features in the hundreds (areas, prices) make the loss's curvature huge: each step's
update overshoots, the error grows by ~×100 a step, and the loss' square of it passes
float32's range in step OVERFLOW (`proof` replays the training, Keras' momentum rule
m ← 0.9·m − lr·g, w ← w + m: |error| is below 1e18 the step before and above 5e19 then;
(1.84e19)² is past 3.4e38). No op is wrong: the line to fix is the learning rate.
"""
# EXPECT origin_op: Square
# EXPECT cause: learning rate, diverg
# EXPECT kind: divergence

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR = 12, 16, 3, 3.5e-4
OVERFLOW = 9  # the step whose loss overflows (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(17)
    x = (rng.uniform(50, 400, size=(STEPS * BATCH, FEATURES))).astype(np.float32)
    y = (x @ np.array([[0.3], [-0.2], [0.1]]) + 5.0).astype(np.float32)
    return x, y


def proof() -> list[float]:
    """Each step's largest |prediction − target|, the training replayed in float64."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1)), 0.0
    mw, mb = np.zeros((FEATURES, 1)), 0.0
    out = []
    for s in range(STEPS):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w + b - yb
        out.append(float(np.abs(err).max()))
        gw, gb = 2 * xb.T @ err / BATCH, 2 * float(err.mean())
        mw, mb = 0.9 * mw - LR * gw, 0.9 * mb - LR * gb
        w, b = w + mw, b + mb
    return out


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    opt = tf.keras.optimizers.SGD(learning_rate=LR, momentum=0.9)  # FIX
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) + b - yb))
        grads = tape.gradient(loss, [w, b])
        opt.apply_gradients(zip(grads, [w, b], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
