"""Summary vectors → health columns (the mode table itself is `reader.modes`).

Every tensor row (graph trace or eager output) carries the same health columns, filled as far
as its mode allows; -1 means "not recorded in this mode". `bad` is 1 when the tensor holds
any NaN/∞, 0 when it is known clean, -1 when the mode cannot tell (NO_TENSOR, SHAPE).
"""

from __future__ import annotations

import numpy as np

from reader.modes import CONCISE_HEALTH, CURT_HEALTH, FULL_HEALTH, REDUCE_INF_NAN_THREE_SLOTS, SHAPE

HEALTH_COLUMNS: dict[str, str] = {
    "tensor_id": "i8",
    "dtype": "i4",
    "rank": "i2",
    "size": "i8",
    "neg_inf": "i8",
    "pos_inf": "i8",
    "nan": "i8",
    "neg": "i8",
    "zero": "i8",
    "pos": "i8",
    "bad": "i1",
}


def empty_health(n: int) -> dict[str, np.ndarray]:
    """Health columns for n rows, all "unknown"."""
    return {k: np.full(n, -1, dtype=dt) for k, dt in HEALTH_COLUMNS.items()}


def fill_from_vectors(h: dict[str, np.ndarray], rows: np.ndarray, mode: int,
                      vecs: np.ndarray) -> None:
    """Fill health columns at `rows` from (n, VECTOR_LEN[mode]) float64 summaries (reader.modes)."""
    if len(rows) == 0:
        return
    v = np.nan_to_num(vecs, nan=-1.0, posinf=-1.0, neginf=-1.0)
    if mode != REDUCE_INF_NAN_THREE_SLOTS:  # the only layout without a leading tensor id
        h["tensor_id"][rows] = v[:, 0]
    if mode == CURT_HEALTH:
        h["bad"][rows] = v[:, 1] != 0
    elif mode == CONCISE_HEALTH:
        h["size"][rows] = v[:, 1]
        h["neg_inf"][rows] = v[:, 2]
        h["pos_inf"][rows] = v[:, 3]
        h["nan"][rows] = v[:, 4]
        h["bad"][rows] = (v[:, 2] + v[:, 3] + v[:, 4]) > 0
    elif mode == FULL_HEALTH:
        h["dtype"][rows] = v[:, 2]
        h["rank"][rows] = v[:, 3]
        h["size"][rows] = v[:, 4]
        h["neg_inf"][rows] = v[:, 5]
        h["pos_inf"][rows] = v[:, 6]
        h["nan"][rows] = v[:, 7]
        h["neg"][rows] = v[:, 8]
        h["zero"][rows] = v[:, 9]
        h["pos"][rows] = v[:, 10]
        h["bad"][rows] = (v[:, 5] + v[:, 6] + v[:, 7]) > 0
    elif mode == SHAPE:
        h["dtype"][rows] = v[:, 1]
        h["rank"][rows] = v[:, 2]
        h["size"][rows] = v[:, 3]
    elif mode == REDUCE_INF_NAN_THREE_SLOTS:
        h["bad"][rows] = np.any(vecs[:, :3] != 0, axis=1)


def shape_from_vector(vec: np.ndarray) -> tuple[int, ...]:
    """The shape a SHAPE-mode vector describes (its last six dims at most, as TF truncates)."""
    rank = int(vec[2])
    dims = [int(d) for d in vec[4:10]]
    return tuple(dims[: min(rank, 6)])
