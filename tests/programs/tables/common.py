"""The data and starting weights both programs of tests/programs/tables/ use, and the numpy
model of their training: matrix factorization, score = <U[user], V[item]> + b, mean squared
error against the ratings, plain gradient descent (a sparse update of the rows looked up)."""
import numpy as np

LR, STEPS = 0.5, 3


def data() -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    rng = np.random.RandomState(3)
    # 12 ratings; users 0-7 and items 0-5, some rated twice, user 7 and item 5 never
    users = np.array([0, 1, 2, 0, 3, 4, 1, 5, 6, 2, 0, 3], np.int32)
    items = np.array([0, 1, 2, 3, 4, 0, 2, 1, 3, 4, 4, 0], np.int32)
    ratings = rng.uniform(-1, 1, size=12).astype(np.float32)
    init = {"users": rng.normal(size=(8, 3)) * 0.5, "items": rng.normal(size=(6, 3)) * 0.5,
            "bias": np.array([0.1])}
    return users, items, ratings, {k: v.astype(np.float32) for k, v in init.items()}


def train(wrong_items: bool = False) -> tuple[list[float], list[dict[str, np.ndarray]]]:
    """Losses and the weights each step reads (then the final ones); `wrong_items`: the
    item table starts from the user table's first six rows (a migration mistake)."""
    users, items, r, w = data()
    w = {k: v.astype(np.float64) for k, v in w.items()}
    if wrong_items:
        w["items"] = w["users"][:6].copy()
    losses, seen = [], [{k: v.copy() for k, v in w.items()}]
    for _ in range(STEPS):
        u, v = w["users"][users], w["items"][items]
        err = (u * v).sum(1) + w["bias"][0] - r
        losses.append(float(np.mean(err ** 2)))
        d = 2.0 * err / len(err)
        gu, gv = np.zeros_like(w["users"]), np.zeros_like(w["items"])
        np.add.at(gu, users, d[:, None] * v)
        np.add.at(gv, items, d[:, None] * u)
        w["users"] -= LR * gu
        w["items"] -= LR * gv
        w["bias"] = w["bias"] - LR * d.sum()
        seen.append({k: x.copy() for k, x in w.items()})
    return losses, seen
