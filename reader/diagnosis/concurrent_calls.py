"""Which record of a producer belongs to a consumer's call when calls of one function overlap.

Why: a dataset function mapped with `num_parallel_calls` runs several calls at once, and
their trace records interleave in the file (two calls' `Sqrt` records, then their `truediv`
records, in either order). Pairing the k-th consumer record with the k-th producer record
(`DiagIndex.paired_trace`) is then only right when the calls finish each op in the order they
started; otherwise a call's division is explained with another call's divisor ("its divisor
holds no zeros" for a 0/0 NaN — seen on a loaded machine, never on a quiet one).

What the file tells: where records of the two tensors alternate (producer, consumer,
producer, …) one call at a time ran and the k-th pairing is certain. Where they do not, the
depth of the overlap (how far the count of one runs ahead of the other) bounds which producer
records can be the call's: the k-th ± that depth. Among those the record is chosen by what the
consumer's own record says: a consumer holding NaN/∞ was fed by a record that holds NaN/∞ or,
failing that, zeros or negative values (what makes NaN/∞ out of finite values: 0/0, x/0,
log 0, √−x); a finite consumer by a finite record. The k-th record wins ties.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from reader.diagnosis.health import Health

NEAR = 16  # consumer records either side of k whose order is looked at


def overlap_candidates(crows: np.ndarray, prows: np.ndarray, k: int) -> list[int]:
    """Indices j of the producer records that may belong to the call of consumer record k
    (k first, then by distance): k alone where the two tensors' records alternate."""
    n = len(crows)
    lo, hi = max(0, k - NEAR), min(n, k + NEAR + 1)
    rows = np.concatenate([prows[lo:hi], crows[lo:hi]])
    step = np.concatenate([np.ones(hi - lo, np.int64), -np.ones(hi - lo, np.int64)])
    running = np.concatenate([[0], np.cumsum(step[np.argsort(rows, kind="stable")])])
    depth = int(running.max() - running.min()) - 1
    if depth <= 0:
        return [k]
    out = [k]
    for d in range(1, depth + 1):
        out.extend(j for j in (k - d, k + d) if 0 <= j < n)
    return out


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
