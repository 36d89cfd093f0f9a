"""Data, initial weights and the numpy reference of the eager-slots pairs
(tests/compare/test_eager_slots.py): a 4 -> 5 sigmoid -> 3 classifier on one fixed batch of
10, softmax cross-entropy from the logits (the batch mean), heavy-ball momentum in Keras'
form (`m = mu m - lr g; w += m`) at a constant rate 0.05, three steps.

`reference(mu)` is the training in numpy alone (float64): per step the loss and the weights
after the update.
"""
import numpy as np

rng = np.random.RandomState(3107)
X = rng.randn(10, 4).astype("float32")
Y = rng.randint(0, 3, size=10).astype("int32")
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.8 * rng.randn(4, 5)).astype("float32"), (0.1 * rng.randn(5)).astype("float32"),
        (0.8 * rng.randn(5, 3)).astype("float32"), (0.1 * rng.randn(3)).astype("float32")]
RATE = 0.05
MU = 0.8  # the rewrite's mistake: 0.9


def reference(mu: float = MU, steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update."""
    w = [a.astype(np.float64) for a in INIT]
    m = [np.zeros_like(a) for a in w]
    x = X.astype(np.float64)
    onehot = np.eye(3)[Y]
    out = []
    for _ in range(steps):
        h = 1.0 / (1.0 + np.exp(-(x @ w[0] + w[1])))
        z = h @ w[2] + w[3]
        p = np.exp(z - z.max(1, keepdims=True))
        p /= p.sum(1, keepdims=True)
        loss = float(-(onehot * np.log(p)).sum(1).mean())
        dz = (p - onehot) / len(x)
        dh = (dz @ w[2].T) * h * (1.0 - h)
        grads = [x.T @ dh, dh.sum(0), h.T @ dz, dz.sum(0)]
        m = [mu * v - RATE * g for v, g in zip(m, grads, strict=True)]
        w = [q + v for q, v in zip(w, m, strict=True)]
        out.append({"loss": loss, "weights": [q.tolist() for q in w]})
    return out
