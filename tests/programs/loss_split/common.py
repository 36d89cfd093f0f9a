"""Data, initial weights and the numpy reference of the split-loss pairs
(tests/compare/test_loss_split.py): one 3-class classifier (4 -> 5 tanh -> 3 logits) under
a softmax cross-entropy written out over three statements — `lse = logsumexp(z, axis=1)`,
`true = sum(onehot * z, axis=1)` (the true class's logit), `loss = mean(lse - true)` — or
called as one TF1 loss function. Plain gradient descent at RATE, three steps on one batch,
float64 numpy.

Variants (the rewrite's statements; each mistake in one of the three):
- `same`: as written above;
- `lse`: the logsumexp without its axis — one scalar over the whole batch (statement 1);
- `true`: the largest logit taken for the true class's (`reduce_max`, statement 2);
- `mean`: the batch summed, not averaged (statement 3).

`reference(variant)`: per step the loss as the program prints it, and the weights after the
update; `parts(variant)`: step 0's per-statement values (lse, true, per-example loss).
"""
import numpy as np

rng = np.random.RandomState(3131)
X = rng.randn(9, 4).astype("float32")
LABELS = np.array([0, 1, 2, 2, 1, 0, 1, 2, 0])
Y = np.eye(3, dtype="float32")[LABELS]
NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
INIT = [(0.5 * rng.randn(4, 5)).astype("float32"), (0.1 * rng.randn(5)).astype("float32"),
        (0.6 * rng.randn(5, 3)).astype("float32"), (0.1 * rng.randn(3)).astype("float32")]
RATE = 0.3
VARIANTS = ("same", "lse", "true", "mean")


def _lse(z: np.ndarray, axis: int | None) -> np.ndarray:
    m = z.max() if axis is None else z.max(axis, keepdims=True)
    s = np.log(np.exp(z - m).sum(axis=axis, keepdims=axis is not None)) + m
    return s if axis is None else s[:, 0]


def _loss_and_dz(variant: str, z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray, dict]:
    n = len(z)
    if variant == "lse":
        lse = _lse(z, None)
        e = np.exp(z - lse)  # d lse / dz: the softmax over all n*3 logits
        d_lse = e
    else:
        lse = _lse(z, 1)
        d_lse = np.exp(z - lse[:, None])
    if variant == "true":
        true = z.max(1)
        d_true = (z == z.max(1, keepdims=True)).astype(np.float64)
    else:
        true = (y * z).sum(1)
        d_true = y
    per = lse - true  # a scalar minus a vector broadcasts to n terms
    if variant == "lse":
        # mean(lse - true): d/dz = d_lse (lse appears in each of n terms, /n) - d_true / n
        loss = float(np.mean(per))
        dz = d_lse - d_true / n
    else:
        scale = 1.0 if variant == "mean" else 1.0 / n
        loss = float(per.sum() * scale)
        dz = (d_lse - d_true) * scale
    return loss, dz, {"lse": np.broadcast_to(lse, (n,)).tolist(), "true": true.tolist(),
                      "per": np.broadcast_to(per, (n,)).tolist()}


def reference(variant: str = "same", steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update, the statements' values."""
    w = [a.astype(np.float64) for a in INIT]
    x, y = X.astype(np.float64), Y.astype(np.float64)
    out = []
    for _ in range(steps):
        h = np.tanh(x @ w[0] + w[1])
        z = h @ w[2] + w[3]
        loss, dz, extra = _loss_and_dz(variant, z, y)
        da = (dz @ w[2].T) * (1.0 - h ** 2)
        grads = [x.T @ da, da.sum(0), h.T @ dz, dz.sum(0)]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        gap = np.sort(z, 1)
        out.append({"loss": loss, "weights": [q.tolist() for q in w],
                    "top_gap": float((gap[:, -1] - gap[:, -2]).min()), **extra})
    return out
