"""Data, initial weights and numpy references of the output-transform pairs
(tests/compare/test_output_transform.py): two models whose last weighted layer is followed
by a transform without weights, computed as a layer in TF1 and elsewhere (or not at all) in
the rewrites.

- **embed**, a metric-learning embedding: 5 -> 6 tanh -> 3 linear `z`, each row normalized
  (`u = z / |z|`), the cosine distance to a unit target direction `mean(1 - t.u)`; plain
  gradient descent at 0.5, three steps, one batch of 10.
- **bounded**, a regression with a bounded output: 3 -> 8 relu -> 2 linear `z`, the
  prediction `2 tanh(z)` (targets within (-1.8, 1.8)), the mean squared error over all 20
  terms; plain gradient descent at 0.1, three steps, one batch of 10.

`embed_reference(axis)` / `bounded_reference(scale)` train in numpy alone (float64) and return
per step the loss, `z`, the transform's output and the weights after the update; `axis=0`
and `scale=3.0` are the rewrites' mistakes (the rows normalized over the batch; the bound
misread), used at step 0 only.
"""
import numpy as np

rng = np.random.RandomState(2929)
EX = rng.randn(10, 5).astype("float32")
_t = rng.randn(10, 3)
ET = (_t / np.linalg.norm(_t, axis=1, keepdims=True)).astype("float32")
EMBED_NAMES = ["hidden/kernel", "hidden/bias", "emb/kernel", "emb/bias"]
EMBED_INIT = [(0.6 * rng.randn(5, 6)).astype("float32"), (0.1 * rng.randn(6)).astype("float32"),
              (0.8 * rng.randn(6, 3)).astype("float32"), (0.3 * rng.randn(3)).astype("float32")]
EMBED_RATE = 0.5

BX = rng.randn(10, 3).astype("float32")
BY = (1.8 * np.tanh(rng.randn(10, 2))).astype("float32")
BOUNDED_NAMES = ["hidden/kernel", "hidden/bias", "out/kernel", "out/bias"]
BOUNDED_INIT = [(0.7 * rng.randn(3, 8)).astype("float32"), (0.1 * rng.randn(8)).astype("float32"),
                (0.4 * rng.randn(8, 2)).astype("float32"), (0.1 * rng.randn(2)).astype("float32")]
BOUNDED_RATE = 0.1
SCALE = 2.0


def embed_reference(axis: int = 1, steps: int = 3) -> list[dict]:
    """Per step: the loss, z, u and the weights after the update (rows normalized over
    `axis`: 1 is the model, 0 the mistake; its gradient is only right for axis 1)."""
    w = [a.astype(np.float64) for a in EMBED_INIT]
    x, t = EX.astype(np.float64), ET.astype(np.float64)
    out = []
    for _ in range(steps):
        h = np.tanh(x @ w[0] + w[1])
        z = h @ w[2] + w[3]
        n = np.sqrt((z * z).sum(axis, keepdims=True))
        u = z / n
        loss = float((1.0 - (t * u).sum(1)).mean())
        gu = -t / len(x)
        gz = (gu - u * (u * gu).sum(1, keepdims=True)) / n
        gh = (gz @ w[2].T) * (1 - h * h)
        grads = [x.T @ gh, gh.sum(0), h.T @ gz, gz.sum(0)]
        out.append({"loss": loss, "z": z.tolist(), "out": u.tolist(),
                    "norm_min": float(n.min())})
        w = [q - EMBED_RATE * g for q, g in zip(w, grads, strict=True)]
        out[-1]["weights"] = [q.tolist() for q in w]
    return out


def bounded_reference(scale: float = SCALE, steps: int = 3) -> list[dict]:
    """Per step: the loss, z, the prediction scale*tanh(z), the smallest |relu input| and
    the weights after the update."""
    w = [a.astype(np.float64) for a in BOUNDED_INIT]
    x, y = BX.astype(np.float64), BY.astype(np.float64)
    out = []
    for _ in range(steps):
        a = x @ w[0] + w[1]
        h = np.maximum(a, 0.0)
        z = h @ w[2] + w[3]
        p = scale * np.tanh(z)
        loss = float(((p - y) ** 2).mean())
        gp = 2 * (p - y) / y.size
        gz = gp * scale * (1 - np.tanh(z) ** 2)
        ga = (gz @ w[2].T) * (a > 0)
        grads = [x.T @ ga, ga.sum(0), h.T @ gz, gz.sum(0)]
        out.append({"loss": loss, "z": z.tolist(), "out": p.tolist(),
                    "kink": float(np.abs(a).min())})
        w = [q - BOUNDED_RATE * g for q, g in zip(w, grads, strict=True)]
        out[-1]["weights"] = [q.tolist() for q in w]
    return out
