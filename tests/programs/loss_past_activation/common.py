"""Data, initial weights and the numpy reference of the loss-past-activation pairs
(tests/compare/test_loss_past_activation.py): three small classifiers whose TF1 programs
compute a probability (`tf.sigmoid` / `tf.nn.softmax` of the logits) on a line of its own,
above a loss written out over several lines that reads the logits, not only that probability.
Plain gradient descent, three steps on one fixed batch, float64 numpy.

- `penalty`: 4 -> 5 tanh -> 3 logits, softmax cross-entropy from the logits minus BETA times
  the mean entropy of the softmax (a confidence penalty); variants `same`, `plus` (the
  entropy added, not subtracted: the rewrite's mistake).
- `hinge`: 3 -> 4 tanh -> 1 logit, the hinge loss on labels mapped to -1/+1 (the sigmoid
  is computed for monitoring only: the loss never reads it); variants `same`, `squared`.
- `wbce`: the hinge's model, a binary cross-entropy weighting the positives POS_W times,
  written by hand from the sigmoid alone (the common form: the probability is then the
  model's output, a case the loss's line was already right in — kept as a guard); variants
  `same`, `inverted` (`pos_weight=1 / POS_W`: the rewrite's mistake).

`reference(model, variant)`: per step the loss as the program prints it, and the weights
after the update.
"""
import numpy as np

rng = np.random.RandomState(2929)
# multi-class batch: 9 examples, 4 features, one-hot labels over 3 classes
XM = rng.randn(9, 4).astype("float32")
YM = np.eye(3, dtype="float32")[[0, 1, 2, 0, 1, 2, 0, 0, 1]]
# binary batch: 10 examples, 3 features, 0/1 labels
XB = rng.randn(10, 3).astype("float32")
YB = np.array([[1], [0], [0], [1], [0], [0], [1], [0], [1], [0]], "float32")

M_NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
B_NAMES = M_NAMES
M_INIT = [(0.5 * rng.randn(4, 5)).astype("float32"), (0.1 * rng.randn(5)).astype("float32"),
          (0.6 * rng.randn(5, 3)).astype("float32"), (0.1 * rng.randn(3)).astype("float32")]
B_INIT = [(0.6 * rng.randn(3, 4)).astype("float32"), (0.1 * rng.randn(4)).astype("float32"),
          (0.5 * rng.randn(4, 1)).astype("float32"), np.array([0.05], "float32")]
BETA = 0.3  # the confidence penalty's weight
POS_W = 3.0  # the positives' weight in the weighted cross-entropy
RATE = {"penalty": 0.2, "hinge": 0.1, "wbce": 0.2}


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(1, keepdims=True))
    return e / e.sum(1, keepdims=True)


def _loss_and_dz(model: str, variant: str, z: np.ndarray, y: np.ndarray
                 ) -> tuple[float, np.ndarray, dict]:
    """The loss of logits `z` and its gradient with respect to them; extras to check."""
    n = len(z)
    if model == "penalty":
        p = _softmax(z)
        logp = np.log(p)
        ce = -(y * logp).sum(1)
        ent = -(p * logp).sum(1)
        sign = 1.0 if variant == "plus" else -1.0
        loss = ce.mean() + sign * BETA * ent.mean()
        d_ent = -p * (logp + ent[:, None])  # dH/dz
        return float(loss), ((p - y) + sign * BETA * d_ent) / n, {"min_p": float(p.min())}
    if model == "hinge":
        s = 2.0 * y - 1.0
        m = 1.0 - s * z
        if variant == "squared":
            return float((np.maximum(m, 0) ** 2).mean()), -2.0 * s * np.maximum(m, 0) / n, \
                {"closest_kink": float(np.abs(m).min())}
        return float(np.maximum(m, 0).mean()), -s * (m > 0) / n, \
            {"closest_kink": float(np.abs(m).min())}
    p = 1.0 / (1.0 + np.exp(-z))
    w_pos, w_neg = (1.0 / POS_W if variant == "inverted" else POS_W), 1.0
    terms = -(w_pos * y * np.log(p) + w_neg * (1 - y) * np.log(1 - p))
    dz = (w_pos * y * (p - 1) + w_neg * (1 - y) * p) / n
    return float(terms.mean()), dz, {"min_p": float(min(p.min(), (1 - p).min()))}


def reference(model: str, variant: str = "same", steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update, the extras (see above)."""
    init, x, y = ((M_INIT, XM, YM) if model == "penalty" else (B_INIT, XB, YB))
    w = [a.astype(np.float64) for a in init]
    x, y = x.astype(np.float64), y.astype(np.float64)
    out = []
    for _ in range(steps):
        h = np.tanh(x @ w[0] + w[1])
        z = h @ w[2] + w[3]
        loss, dz, extra = _loss_and_dz(model, variant, z, y)
        da = (dz @ w[2].T) * (1.0 - h ** 2)
        grads = [x.T @ da, da.sum(0), h.T @ dz, dz.sum(0)]
        w = [q - RATE[model] * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "weights": [q.tolist() for q in w], **extra})
    return out
