"""Keras `fit` calibrating a frozen regression head: a custom layer divides its output by a
learned scale, kept non-negative with a ReLU.

Usage: python fit_relu_scale.py

The targets are MULT times the frozen head's output, so SGD shrinks the scale's variable s
from 1 toward 1/MULT, faster and faster (its gradient grows as 1/s²), until a step jumps
past 0 (0.295 → −0.168 in step 7): relu(s) is then exactly 0 and the division is ±∞ in
step BAD (`proof` replays SGD in numpy). The line to change is the division (softplus(s),
or a lower bound, keeps the scale above 0).
"""
# EXPECT origin_op: RealDiv
# EXPECT cause: zero|0/0
# EXPECT kind: forward

from __future__ import annotations

import numpy as np

STEPS, BATCH, FEATURES, LR, MULT = 40, 16, 3, 0.02, 10.0
W0 = np.array([[0.2], [-0.1], [0.3]], np.float32)  # the frozen head's kernel
BAD = 8  # the step that reads relu(s) = 0 (`proof`)


def make_data() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(405)
    x = rng.normal(size=(STEPS * BATCH, FEATURES)).astype(np.float32)
    y = x @ W0 * MULT + 0.05 * rng.normal(size=(STEPS * BATCH, 1))
    return x, y.astype(np.float32)


def proof() -> tuple[list[bool], list[float]]:
    """For each step, whether the prediction is finite and the s it reads (numpy float32:
    ŷ = (x·W0)/relu(s), mean squared error, SGD on s)."""
    x, y = make_data()
    sv = np.float32(1)
    lr = np.float32(LR)
    finite: list[bool] = []
    seen: list[float] = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for k in range(STEPS):
            xb, yb = x[k * BATCH:(k + 1) * BATCH], y[k * BATCH:(k + 1) * BATCH]
            z = (xb @ W0).astype(np.float32)
            scale = np.maximum(sv, np.float32(0))
            pred = z / scale
            finite.append(bool(np.isfinite(pred).all()))
            seen.append(float(sv))
            if not finite[-1]:
                break
            g = (np.float32(2) * (pred - yb) / np.float32(BATCH)).astype(np.float32)
            gs = np.float32(-(g * z).sum() / (scale * scale)) if sv > 0 else np.float32(0)
            sv = np.float32(sv - lr * gs)
    return finite, seen


def main() -> None:
    import tensorflow as tf

    class Rescale(tf.keras.layers.Layer):
        """Its input divided by a learned scale."""

        def build(self, input_shape: tuple[int, ...]) -> None:
            self.scale = self.add_weight(shape=(), initializer="ones", name="scale")

        def call(self, z: tf.Tensor) -> tf.Tensor:
            return z / tf.nn.relu(self.scale)  # FIX

    x, y = make_data()
    model = tf.keras.Sequential([
        tf.keras.Input((FEATURES,)),
        tf.keras.layers.Dense(1, kernel_initializer=tf.keras.initializers.Constant(W0),
                              trainable=False),
        Rescale()])
    model.compile(optimizer=tf.keras.optimizers.SGD(LR), loss="mse")
    model.fit(x, y, batch_size=BATCH, epochs=1, shuffle=False, verbose=2)


if __name__ == "__main__":
    main()
