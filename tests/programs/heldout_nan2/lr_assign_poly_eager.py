"""An eager loop that sets the optimizer's learning rate at the top of every step from a
polynomial decay to 0 over DECAY_STEPS steps — and then trains for more steps than that.

Usage: python lr_assign_poly_eager.py

lr = BASE·(1 − s/DECAY_STEPS)^0.9 is 0 at s = DECAY_STEPS and, past it, a negative number
to a fractional power: NaN, first in step BAD = DECAY_STEPS + 1, computed and assigned
before that step's forward pass (its loss is finite, the update then writes NaN into the
weights). `proof` replays the rates in float32 and the training before them. The line to fix
is the assignment (clamp s at DECAY_STEPS, or train DECAY_STEPS steps).
"""
# EXPECT origin_op: Pow
# EXPECT cause: negative
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, BASE, DECAY_STEPS = 9, 8, 3, 0.05, 5
BAD = DECAY_STEPS + 1


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(61)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = (x @ np.array([[0.3], [1.0], [-0.7]])).astype(np.float32)
    return x, y


def rates() -> list[float]:
    with np.errstate(invalid="ignore"):
        return [float(np.float32(BASE) * np.float32(1.0 - s / DECAY_STEPS) ** np.float32(0.9))
                for s in range(STEPS)]


def proof() -> tuple[int, list[float]]:
    """The first step whose learning rate is not finite, and the losses up to it."""
    x, y = make_data()
    w = np.zeros((FEATURES, 1), np.float32)
    losses = []
    for s, lr in enumerate(rates()):
        xb, yb = x[s * BATCH:(s + 1) * BATCH], y[s * BATCH:(s + 1) * BATCH]
        err = xb @ w - yb
        losses.append(float(np.mean(err * err)))
        if not np.isfinite(lr):
            return s, losses
        w = w - np.float32(lr) * (2 * xb.T @ err / BATCH)
    return -1, losses


def main() -> None:
    import tensorflow as tf

    x, y = make_data()
    w = tf.Variable(tf.zeros([FEATURES, 1]))
    opt = tf.keras.optimizers.SGD(BASE)
    for step in range(STEPS):
        opt.learning_rate = BASE * tf.pow(1.0 - step / DECAY_STEPS, 0.9)  # FIX
        xb = tf.constant(x[step * BATCH:(step + 1) * BATCH])
        yb = tf.constant(y[step * BATCH:(step + 1) * BATCH])
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(tf.matmul(xb, w) - yb))
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w], strict=True))
        print(f"step {step}: loss {float(loss):.4g}")


if __name__ == "__main__":
    main()
