"""An eager loop training a linear model with RMSprop(rho=1.0, epsilon=0.0): "rho is how
much of the average to keep — keep all of it; and no epsilon, to be exact".

Usage: python rmsprop_rho_one.py

RMSprop's average of squared gradients is v ← ρ·v + (1 − ρ)·g². With ρ = 1 the new
gradient never enters it: v stays at its initial 0, and the update lr·g / √(v + ε) divides
by √(0 + 0) = 0 — ±∞ for every weight whose gradient is not 0, in step 0, inside the
optimizer, though the data, the model and the gradients are finite (`proof` replays step 0
in float32). The line to fix is the optimizer's (rho below 1, epsilon above 0).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0|divid, epsilon
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR = 4, 8, 3, 0.01


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(41)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[0.5], [-1.0], [2.0]]) + 1.0).astype(np.float32)
    return x, y


def proof() -> tuple[int, bool, bool]:
    """The first step whose update is not finite, whether that step's loss and gradients
    were finite, in float32 as Keras computes RMSprop (rho 1, epsilon 0)."""
    x, y = make_data()
    w, b = np.zeros((FEATURES, 1), np.float32), np.float32(0)
    vw, vb = np.zeros_like(w), np.float32(0)
    for s in range(STEPS):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w + b - yb
        loss = np.mean(err * err)
        gw, gb = 2 * xb.T @ err / BATCH, np.float32(2 * err.mean())
        vw, vb = 1.0 * vw + 0.0 * gw * gw, np.float32(1.0 * vb + 0.0 * gb * gb)
        with np.errstate(divide="ignore", invalid="ignore"):
            uw, ub = LR * gw / np.sqrt(vw + 0.0), np.float32(LR * gb) / np.sqrt(vb + 0)
        if not (np.isfinite(uw).all() and np.isfinite(ub)):
            finite = bool(np.isfinite(loss) and np.isfinite(gw).all() and np.isfinite(gb))
            return s, finite, bool((vw == 0).all() and vb == 0)
        w, b = w - uw, b - ub
    return -1, True, False


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w, b = tf.Variable(tf.zeros([FEATURES, 1])), tf.Variable(0.0)
    opt = tf.keras.optimizers.RMSprop(learning_rate=LR, rho=1.0, epsilon=0.0)  # FIX
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
