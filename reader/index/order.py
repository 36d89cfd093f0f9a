"""Putting an index's tensor rows in wall-time order: the one ordering rule of the shard merge
(`reader.index.shards`) and of a run read file set after file set.

The rule is a stable sort by wall time (NaN last, ties keep the order rows were read in,
file set by file set): row numbers then never depend on how a run was read. Each pass here
is over millions of rows, so the work is spent only where it changes something: a column
already in order is detected in one pass and left alone (no sort, no copy), and the inverse
permutation (for the few rows whose health is kept) is built only when there are such rows.
A shard sorts its own traces (in its worker, in parallel), so the merge's stable sort sees a
few sorted runs, which timsort merges instead of sorting.
"""

from __future__ import annotations

import numpy as np

Columns = dict[str, np.ndarray]
SPLIT_MIN_ROWS = 1 << 20  # fewer rows sort faster than threads start


def in_order(times: np.ndarray) -> bool:
    """Would a stable sort by `times` leave every row where it is? (NaN sorts last.)"""
    n = len(times)
    if n < 2:
        return True
    nan = np.isnan(times)
    k = int(np.count_nonzero(nan))
    if k and not nan[n - k:].all():
        return False
    head = times[:n - k]
    return not bool(np.any(head[1:] < head[:-1]))


def stable_order(times: np.ndarray) -> np.ndarray | None:
    """The stable wall-time order of `times`, or None when it is the identity."""
    if in_order(times):
        return None
    return np.argsort(times, kind="stable")


def permute(cols: Columns, order: np.ndarray) -> Columns:
    return {c: np.ascontiguousarray(a[order]) for c, a in cols.items()}


def _inverse(order: np.ndarray) -> np.ndarray:
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order), dtype=order.dtype)
    return inverse


def renumber_details(details: Columns, order: np.ndarray) -> Columns:
    """Kept-health rows follow their rows (moved by `order`) to their new numbers (and stay
    ascending)."""
    if not len(details["row"]):
        return details
    rows = _inverse(order)[details["row"]]
    details = dict(details, row=rows.astype(details["row"].dtype))
    return permute(details, np.argsort(rows, kind="stable"))


def order_traces(cols: dict[str, Columns]) -> None:
    """Traces (and their kept health) in wall-time order, in place in `cols`."""
    order = stable_order(cols["traces"]["wall_time"])
    if order is not None:
        cols["traces"] = permute(cols["traces"], order)
        cols["traces.details"] = renumber_details(cols["traces.details"], order)


def order_executions(cols: dict[str, Columns], ekinds: Columns) -> None:
    """Executions in wall-time order, each with its block of outputs, in place in `cols`;
    left in file order when the outputs are not exactly the executions' blocks."""
    e, o = cols["executions"], cols["outputs"]
    order = stable_order(e["wall_time"])
    if order is None:
        return
    lens = ekinds["n_outputs"][e["kind"]].astype(np.int64)[order]
    starts = e["first_output"][order].astype(np.int64)
    if int(lens.sum()) != len(o["slot"]):
        return  # outputs not exactly the executions' blocks: keep the file order
    new_first = np.concatenate([[0], np.cumsum(lens)[:-1]]) if len(lens) else lens
    out_order = np.repeat(starts - new_first, lens) + np.arange(int(lens.sum()))
    cols["executions"] = permute(e, order)
    cols["executions"]["first_output"] = new_first.astype(e["first_output"].dtype)
    o = permute(o, out_order)
    o["execution"] = _inverse(order)[o["execution"]].astype(o["execution"].dtype)
    cols["outputs"] = o
    cols["outputs.details"] = renumber_details(cols["outputs.details"], out_order)


def wall_time_order(cols: dict[str, Columns], ekinds: Columns) -> None:
    """Traces, and executions with their outputs, in wall-time order (stable: a host's own
    order is kept between equal times; NaN times last)."""
    order_traces(cols)
    order_executions(cols, ekinds)


def _split_order(times: np.ndarray, bounds: np.ndarray, threads: int) -> np.ndarray | None:
    """`stable_order` of `times`, made of runs (`bounds`) each already in order, computed
    in `threads` parts: pivots split every run at the same wall times, so part j holds the
    rows between pivots j and j + 1 of every run, and the parts are sorted apart (numpy
    releases the GIL while sorting and gathering) and put one after another. None when the
    runs are not each in order (or too few rows to be worth it)."""
    n = len(times)
    if threads < 2 or n < SPLIT_MIN_ROWS:
        return None
    runs = list(zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True))
    if not all(in_order(times[a:b]) for a, b in runs):
        return None
    sample = times[:: max(1, n // 4096)]
    sample = sample[~np.isnan(sample)]
    if not len(sample):
        return None
    pivots = np.quantile(sample, [j / threads for j in range(1, threads)])
    cuts = [[a for a, _ in runs]]
    cuts += [[a + int(np.searchsorted(times[a:b], p, "left")) for a, b in runs] for p in pivots]
    cuts.append([b for _, b in runs])

    def part(j: int) -> np.ndarray:
        lo, hi = cuts[j], cuts[j + 1]
        idx = np.concatenate([np.arange(a, b) for a, b in zip(lo, hi, strict=True)])
        sub = np.concatenate([times[a:b] for a, b in zip(lo, hi, strict=True)])
        return idx[np.argsort(sub, kind="stable")]

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return np.concatenate(list(pool.map(part, range(threads))))


def merge_runs(pieces: list[Columns], spec: dict[str, np.dtype], threads: int = 1
               ) -> tuple[Columns, np.ndarray | None]:
    """Rows given as pieces (a shard's traces each, best each in wall-time order), as one
    set of columns in stable wall-time order, and the order that took them there (None:
    they were in order). Each column is written once, straight from its pieces to its place
    (`threads` columns at a time)."""
    lens = [len(p["wall_time"]) for p in pieces]
    times = (np.concatenate([p["wall_time"] for p in pieces]).astype(np.float64, copy=False)
             if pieces else np.zeros(0))
    if in_order(times):
        order = None
    else:
        bounds = np.cumsum([0, *lens])
        order = _split_order(times, bounds, threads)
        if order is None:
            order = np.argsort(times, kind="stable")

    def column(c: str) -> np.ndarray:
        if not pieces:
            return np.zeros(0, spec[c])
        if c == "wall_time":
            return (times if order is None else times[order]).astype(spec[c], copy=False)
        out = np.empty(len(times), spec[c])
        if order is None:
            np.concatenate([p[c] for p in pieces], out=out, casting="same_kind")
        else:
            assert dest is not None
            at = 0
            for p, m in zip(pieces, lens, strict=True):
                out[dest[at:at + m]] = p[c]
                at += m
        return out

    dest = _inverse(order) if order is not None else None
    if threads < 2:
        return {c: column(c) for c in spec}, order
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        return dict(zip(spec, pool.map(column, spec), strict=True)), order
