"""Data, initial weights and the numpy reference of the two-tower pairs
(tests/compare/test_two_tower_merge.py): a user tower and an item tower (3 features -> 4,
tanh, each its own weights) merged into one click logit, under the sigmoid cross-entropy
(the batch mean); plain gradient descent at RATE, three steps on one batch, float64 numpy.

Merges (`score(merge, u, v, head)`):
- `dot`: the dot product of the two embeddings (TF1 `reduce_sum(u * v)`, Keras `Dot(axes=1)`);
- `cos`: their cosine (TF1 `l2_normalize` of each, then the dot product; Keras
  `Dot(axes=1, normalize=True)`);
- `concat`: the two embeddings concatenated [u, v], then a linear head 8 -> 1;
- `swap`: concatenated the other way round [v, u] (a mistake against `concat`);
- `prod`: their elementwise product, then a linear head 4 -> 1;
- `add`: their sum, then the head (a mistake against `prod`).

`reference(merge)`: per step the loss, the weights after the update (towers, then the head
where there is one), and step 0's tower outputs and logits.
"""
import numpy as np

rng = np.random.RandomState(2931)
XU = rng.randn(8, 3).astype("float32")
XV = rng.randn(8, 3).astype("float32")
CLICK = np.array([[1], [0], [1], [1], [0], [0], [1], [0]], "float32")
TOWERS = ["user/kernel", "user/bias", "item/kernel", "item/bias"]
TOWER_INIT = [(0.8 * rng.randn(3, 4)).astype("float32"), (0.2 * rng.randn(4)).astype("float32"),
              (0.8 * rng.randn(3, 4)).astype("float32"), (0.2 * rng.randn(4)).astype("float32")]
HEAD = ["head/kernel", "head/bias"]
HEAD_INIT = {"concat": [(0.6 * rng.randn(8, 1)).astype("float32"), np.array([0.1], "float32")],
             "prod": [(0.9 * rng.randn(4, 1)).astype("float32"), np.array([-0.1], "float32")]}
HEAD_INIT["swap"] = HEAD_INIT["concat"]
HEAD_INIT["add"] = HEAD_INIT["prod"]
RATE = 0.5
MERGES = ("dot", "cos", "concat", "swap", "prod", "add")


def initial(merge: str) -> list[np.ndarray]:
    """The weights a program starts from: the towers', then the head's where there is one."""
    return TOWER_INIT + HEAD_INIT.get(merge, [])


def _merge(merge: str, u: np.ndarray, v: np.ndarray, w: list[np.ndarray]
           ) -> tuple[np.ndarray, object]:
    """The logits (n, 1), and a function of d loss / d logits -> (du, dv, head grads)."""
    if merge == "dot":
        return (u * v).sum(1, keepdims=True), lambda dz: (dz * v, dz * u, [])
    if merge == "cos":
        nu, nv = np.linalg.norm(u, axis=1, keepdims=True), np.linalg.norm(v, axis=1, keepdims=True)
        s = (u * v).sum(1, keepdims=True) / (nu * nv)
        return s, lambda dz: (dz * (v / (nu * nv) - s * u / nu ** 2),
                              dz * (u / (nu * nv) - s * v / nv ** 2), [])
    k, b = w[4], w[5]
    if merge in ("concat", "swap"):
        m = np.concatenate([u, v] if merge == "concat" else [v, u], 1)
        first, second = (k[:4], k[4:]) if merge == "concat" else (k[4:], k[:4])
        return m @ k + b, lambda dz: (dz @ first.T, dz @ second.T, [m.T @ dz, dz.sum(0)])
    m = u * v if merge == "prod" else u + v
    if merge == "prod":
        return m @ k + b, lambda dz: ((dz @ k.T) * v, (dz @ k.T) * u, [m.T @ dz, dz.sum(0)])
    return m @ k + b, lambda dz: (dz @ k.T, dz @ k.T, [m.T @ dz, dz.sum(0)])


def reference(merge: str, steps: int = 3) -> list[dict]:
    """Per step: the loss, the weights after the update; step 0's u, v and logits."""
    w = [a.astype(np.float64) for a in initial(merge)]
    xu, xv, c = (a.astype(np.float64) for a in (XU, XV, CLICK))
    out = []
    for _ in range(steps):
        u = np.tanh(xu @ w[0] + w[1])
        v = np.tanh(xv @ w[2] + w[3])
        s, back = _merge(merge, u, v, w)
        p = 1.0 / (1.0 + np.exp(-s))
        loss = float(np.mean(np.maximum(s, 0) - s * c + np.log1p(np.exp(-np.abs(s)))))
        du, dv, head = back((p - c) / len(s))
        au, av = du * (1 - u ** 2), dv * (1 - v ** 2)
        grads = [xu.T @ au, au.sum(0), xv.T @ av, av.sum(0), *head]
        w = [q - RATE * g for q, g in zip(w, grads, strict=True)]
        out.append({"loss": loss, "weights": [q.tolist() for q in w], "u": u, "v": v,
                    "score": s, "shortest": float(min(np.linalg.norm(u, axis=1).min(),
                                                      np.linalg.norm(v, axis=1).min()))})
    return out
