"""Vectorised keys: "the k-th time this tensor was computed", and matching two runs on them.

A run of a million traces cannot be aligned row by row in Python. Both helpers here are a
few numpy sorts: `occurrence` numbers the rows of each group in file order, `match` pairs the
rows of two runs whose (group, occurrence) are equal.
"""

from __future__ import annotations

import numpy as np

_LIMIT = 1 << 62


def occurrence(groups: np.ndarray) -> np.ndarray:
    """For each element, how many earlier elements (in array order) share its group."""
    n = len(groups)
    if n == 0:
        return np.zeros(0, np.int64)
    order = np.argsort(groups, kind="stable")
    g = groups[order]
    start = np.ones(n, bool)
    start[1:] = g[1:] != g[:-1]
    firsts = np.flatnonzero(start)
    run_start = np.repeat(firsts, np.diff(np.append(firsts, n)))
    occ = np.empty(n, np.int64)
    occ[order] = np.arange(n, dtype=np.int64) - run_start
    return occ


def _dense(ga: np.ndarray, gb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same groups renumbered 0..k-1 over both runs (so packed keys cannot overflow)."""
    both = np.concatenate([ga, gb])
    _, inverse = np.unique(both, return_inverse=True)
    return inverse[: len(ga)].astype(np.int64), inverse[len(ga):].astype(np.int64)


def match(ga: np.ndarray, oa: np.ndarray, gb: np.ndarray,
          ob: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions (ia, ib) of the elements of a and b whose (group, occurrence) are equal.

    Groups are ints in one space shared by both runs; negative groups never match. Each
    (group, occurrence) must be unique within a run (which `occurrence` guarantees).
    """
    va, vb = np.flatnonzero(ga >= 0), np.flatnonzero(gb >= 0)
    if len(va) == 0 or len(vb) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    ga, oa, gb, ob = (np.asarray(x, np.int64) for x in (ga[va], oa[va], gb[vb], ob[vb]))
    width = int(max(oa.max(), ob.max())) + 1
    if int(max(ga.max(), gb.max())) + 1 > _LIMIT // width:
        ga, gb = _dense(ga, gb)
    ka, kb = ga * width + oa, gb * width + ob
    order_b = np.argsort(kb, kind="stable")
    kb_sorted = kb[order_b]
    at = np.searchsorted(kb_sorted, ka)
    at_clipped = np.minimum(at, len(kb_sorted) - 1)
    hit = (at < len(kb_sorted)) & (kb_sorted[at_clipped] == ka)
    ia = np.flatnonzero(hit)
    return va[ia], vb[order_b[at_clipped[ia]]]


def first_mismatch(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the common prefix of two 1-D arrays."""
    n = min(len(a), len(b))
    diff = np.flatnonzero(a[:n] != b[:n])
    return int(diff[0]) if len(diff) else n
