"""An eager loop training a linear model (no bias) on a Charbonnier loss √(e² + ε²) written
without its ε ("it is only there for smoothness").

Usage: python charbonnier_eager.py

Batch BAD holds a padding row, features and target 0: its prediction is exactly 0, its
error exactly 0, √(0²) = 0 is finite and so is the loss — but d√u/du = 1/(2√u) is +∞ at 0:
the gradient of the square root is ∞ in step BAD, and 0·∞ = NaN on the way to the weights.
No other row's error is 0 in any step (`proof` replays the training in float32). The line to
fix is the loss (add ε² under the root).
"""
# EXPECT origin_op: SqrtGrad
# EXPECT forward_op: Sqrt
# EXPECT cause: sqrt, zero|at 0|= 0
# EXPECT kind: gradient

from __future__ import annotations

import numpy as np

STEPS, BAD, BATCH, FEATURES, LR = 6, 4, 8, 3, 0.05


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(83)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[1.0], [2.0], [-1.0]]) + 0.1 * rng.normal(size=(STEPS * BATCH, 1)))
    y = y.astype(np.float32)
    x[BAD * BATCH + 2], y[BAD * BATCH + 2] = 0.0, 0.0  # padding
    return x, y


def proof() -> tuple[list[int], float]:
    """The steps with an error exactly 0, and the smallest |error| of the others, the
    training replayed in float32 (plain SGD on mean |e|: the gradient is sign(e)·x / n)."""
    x, y = make_data()
    w = np.zeros((FEATURES, 1), np.float32)
    zero, smallest = [], np.inf
    for s in range(STEPS):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w - yb
        if (err == 0).any():
            zero.append(s)
        smallest = min(smallest, float(np.abs(err[err != 0]).min()))
        w = w - np.float32(LR) * (xb.T @ np.sign(err) / BATCH)
    return zero, smallest


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable(tf.zeros([FEATURES, 1]))
    opt = tf.keras.optimizers.SGD(LR)
    for step in range(STEPS):
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.sqrt(tf.square(tf.matmul(xb, w) - yb)))  # FIX
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
