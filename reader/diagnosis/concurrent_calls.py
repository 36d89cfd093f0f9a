"""Which record of a producer belongs to a consumer's call when calls of one function overlap.

Why: a dataset function mapped with `num_parallel_calls` runs several calls at once, and
their trace records interleave in the file (two calls' `Sqrt` records, then their `truediv`
records, in either order). Pairing the k-th consumer record with the k-th producer record
(`DiagIndex.paired_trace`) is then only right when the calls finish each op in the order they
started; otherwise a call's division is explained with another call's divisor ("its divisor
holds no zeros" for a 0/0 NaN — seen on a loaded machine, never on a quiet one).

What the file tells: where records of the two tensors alternate (producer, consumer,
producer, …) one call at a time ran and the k-th pairing is certain. Where they do not, the
calls that overlap form a group (a stretch of the file that starts and ends with as many
records of one tensor as of the other): the consumer's producer is one of its group's.
Among those the record is chosen by what the consumer's own record says: a consumer holding
NaN/∞ was fed by a record that holds NaN/∞ or, failing that, zeros or negative values (what
makes NaN/∞ out of finite values: 0/0, x/0, log 0, √−x); a finite consumer by a finite
record. The k-th record wins ties.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.diagnosis.health import Health

NEAR = 16  # consumer records either side of k whose order is looked at


def overlap_candidates(crows: np.ndarray, prows: np.ndarray, k: int) -> list[int]:
    """Indices j of the producer records that may belong to the call of consumer record k
    (k first, then by distance): the producer records of k's overlap group — the stretch of
    the file, around k, where as many producer as consumer records have been seen at its
    start and end and not in between (one call at a time: one of each, k alone)."""
    n = len(crows)
    lo, hi = max(0, k - NEAR), min(n, k + NEAR + 1)
    rows = np.concatenate([prows[lo:hi], crows[lo:hi]])
    who = np.concatenate([np.arange(lo, hi), -1 - np.arange(lo, hi)])  # j, or -1 - consumer
    order = np.argsort(rows, kind="stable")
    running = np.cumsum(np.where(who[order] >= 0, 1, -1))
    group = np.concatenate([[0], np.cumsum(running == 0)[:-1]])  # a group ends at each 0
    mine = group[int(np.flatnonzero(who[order] == -1 - k)[0])]
    members = who[order][group == mine]
    out = sorted((int(j) for j in members if j >= 0), key=lambda j: (abs(j - k), j))
    if k not in out:
        return [k]  # (never: k's group holds as many producers as consumers around k)
    out.remove(k)
    return [k, *out]


def _score(consumer: Health | None, h: Health | None) -> int:
    """Lower is more likely the consumer's own input record."""
    if consumer is None or h is None or consumer.bad < 0 or h.bad < 0:
        return 0
    if consumer.bad == 0:
        return 0 if h.bad == 0 else 3
    if h.bad == 1:
        return 0
    if h.zero:
        return 1
    if h.negative:
        return 2
    return 3


def pick(candidates: list[int], prows: np.ndarray, consumer: Health | None,
         health: Callable[[int], Health | None]) -> int:
    """The producer row of the call (see the module docstring); `health(row)` reads one."""
    if len(candidates) == 1:
        return int(prows[candidates[0]])
    best = min(candidates, key=lambda j: _score(consumer, health(int(prows[j]))))
    return int(prows[best])
