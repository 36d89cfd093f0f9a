"""Data, initial weights and the numpy reference of the loss-lines pairs
(tests/compare/test_loss_lines.py): a 3 -> 4 softplus -> 1 regressor on one fixed batch of 8,
the Huber loss (delta 1, or the rewrite's 0.5), an optional L2 penalty 0.05·Σw² on the output
kernel (the rewrite's mistake), plain gradient descent at 0.1, three steps.

`reference(delta, l2)` is the training in numpy alone (float64): per step the loss as the
program prints it (the data loss, plus the penalty where there is one) and the weights after
the update.
"""
import numpy as np

rng = np.random.RandomState(2029)
X = rng.randn(8, 3).astype("float32")
Y = (1.5 * rng.randn(8)).astype("float32")  # a vector: one target per example
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.7 * rng.randn(3, 4)).astype("float32"), (0.1 * rng.randn(4)).astype("float32"),
        (0.7 * rng.randn(4, 1)).astype("float32"), (0.1 * rng.randn(1)).astype("float32")]
RATE = 0.1
L2 = 0.05


def reference(delta: float = 1.0, l2: float = 0.0, steps: int = 3) -> list[dict]:
    """Per step: the loss (with the penalty when `l2`), the weights after the update."""
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        a = x @ w[0] + w[1]
        h = np.log1p(np.exp(a))
        p = (h @ w[2] + w[3])[:, 0]
        e = p - y
        quad = np.abs(e) <= delta
        data = np.where(quad, 0.5 * e ** 2, delta * np.abs(e) - 0.5 * delta ** 2).mean()
        loss = float(data + l2 * (w[2] ** 2).sum())
        dp = np.where(quad, e, delta * np.sign(e)) / len(x)
        dz = dp[:, None]
        da = (dz @ w[2].T) / (1.0 + np.exp(-a))
        grads = [x.T @ da, da.sum(0), h.T @ dz + 2.0 * l2 * w[2], dz.sum(0)]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "weights": [q.tolist() for q in w]})
    return out
