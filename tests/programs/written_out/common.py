"""Data, initial weights and the numpy reference of the written-out activations pairs
(tests/compare/test_written_out.py): a 5 -> 4 tanh -> 3 log-softmax classifier on one fixed
batch of 8, the mean negative log-likelihood, plain gradient descent at 0.2, three steps.

TF1 writes both activations out — tanh as `2·sigmoid(2a) − 1`, the log-softmax as
`z − logsumexp(z)` — so each layer ends in a subtraction; Keras computes them in one op each
(`Tanh`, `LogSoftmax`). `reference(activation)` is the training in numpy alone (float64): per
step the loss and the weights after the update; `activation` is the hidden layer's
("tanh", or "sigmoid": the rewrite's mistake).
"""
import numpy as np

rng = np.random.RandomState(29)
X = rng.randn(8, 5).astype("float32")
Y = np.eye(3, dtype="float32")[rng.randint(0, 3, 8)]
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.6 * rng.randn(5, 4)).astype("float32"), (0.1 * rng.randn(4)).astype("float32"),
        (0.6 * rng.randn(4, 3)).astype("float32"), (0.1 * rng.randn(3)).astype("float32")]
RATE = 0.2


def reference(activation: str = "tanh", steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update."""
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        a = x @ w[0] + w[1]
        if activation == "tanh":
            h, dh_da = np.tanh(a), 1.0 - np.tanh(a) ** 2
        else:
            s = 1.0 / (1.0 + np.exp(-a))
            h, dh_da = s, s * (1.0 - s)
        z = h @ w[2] + w[3]
        logp = z - np.log(np.exp(z - z.max(1, keepdims=True)).sum(1, keepdims=True)) \
            - z.max(1, keepdims=True)
        loss = float(-(y * logp).sum(1).mean())
        dz = (np.exp(logp) - y) / len(x)
        da = (dz @ w[2].T) * dh_da
        grads = [x.T @ da, da.sum(0), h.T @ dz, dz.sum(0)]
        w = [p - RATE * g for p, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "weights": [p.tolist() for p in w]})
    return out
