"""A run opened from its shards, the graph traces merged in wall-time order as they are read.

`reader.index.shards.merge` puts whole shards together; an open from Parquet shards
(`reader.index.shard_open`) instead reads each shard's traces — most of a run's rows — a row
group at a time (`reader.index.parquet_shards.LazyShard`), and appends them window by window
in their final order: each window takes, from every host, the rows earlier than the latest
time every host still being read has reached (each shard's traces are in wall-time order),
and sorts them stably. Equal times always fall in one window, so the rows end exactly where
the whole merge puts them (ties in file set order, NaN last), with the same kept health and
alerts; a report from the shards is a direct read's.

What comes first: everything but the traces' rows (kinds, strings, the executions with their
outputs, which are a few of a run's rows, and their alerts) is merged whole up front; then the
windows. The caller's `progress` is told after each window, so an open shows the first graph
alerts when the windows holding them are merged, not when every shard is; it is held back
while an eager alert is known and graph traces earlier than it may still come, so the first
alert shown is the run's earliest.

A shard whose traces cannot be read past some row (a damaged page: its kinds and offsets were
checked when it was opened) stops there with a warning naming it; the rows before stay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

import numpy as np

from reader.index.alerts import NewRows
from reader.index.order import stable_order
from reader.index.parquet_shards import LazyShard, ShardError
from reader.index.schema import EAGER

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

Columns = dict[str, np.ndarray]


def _last(b: Columns) -> float:
    """How far a host's rows read so far reach (its NaN times, last, reach past everything)."""
    t = float(b["wall_time"][-1])
    return np.inf if np.isnan(t) else t


class _Host:
    """One shard's traces as the merge takes them: the rows read and not yet taken."""

    def __init__(self, lazy: LazyShard, kind_offset: int, want: dict[str, np.dtype],
                 details: Columns, name: str) -> None:
        self.batches: Iterator[Columns] = lazy.trace_batches()
        self.kind_offset, self.want, self.details, self.name = kind_offset, want, details, name
        self.buf: Columns = {c: np.zeros(0, dt) for c, dt in want.items()}
        self.base = 0  # the shard's row number of buf's first row
        self.ended = False
        self.error = ""

    def __len__(self) -> int:
        return len(self.buf["wall_time"])

    def pull(self) -> None:
        """Read the shard's next row group onto the rows not yet taken."""
        try:
            batch = next(self.batches, None)
        except ShardError as exc:
            batch, self.error = None, str(exc)
        if batch is None:
            self.ended = True
            return
        fitted = {c: (batch[c].astype(dt, copy=False) if c in batch
                      else np.zeros(len(batch["wall_time"]), dt))  # digests not kept there
                  for c, dt in self.want.items()}
        fitted["kind"] = fitted["kind"] + np.int32(self.kind_offset)
        self.buf = ({c: np.concatenate([self.buf[c], fitted[c]]) for c in self.want}
                    if len(self) else fitted)

    def take(self, n: int) -> tuple[Columns, Columns]:
        """The first `n` rows not yet taken, and the kept health of those rows."""
        rows = {c: a[:n] for c, a in self.buf.items()}
        self.buf = {c: a[n:] for c, a in self.buf.items()}
        d = self.details
        lo, hi = np.searchsorted(d["row"], [self.base, self.base + n])
        kept = {c: a[lo:hi] for c, a in d.items()}
        kept["row"] = kept["row"] - self.base
        self.base += n
        return rows, kept


def merge_streaming(logdir: DebugLogdir, sources: list[LazyShard], threads: int,
                    progress: Callable[[float], None] | None = None) -> None:
    """Put `sources` (one per file set of `logdir`, in its order) in place as its index,
    as `reader.index.shards.merge` would (see the module's docstring); `progress(share)` is
    told the share of trace rows merged after each window."""
    from reader.index.shards import merge

    details, offsets, kinds = [], [], 0
    for s in sources:
        d = s.shard.columns["traces.details"]
        details.append(d)
        s.shard.columns["traces.details"] = {c: a[:0] for c, a in d.items()}
        offsets.append(kinds)
        kinds += len(s.shard.columns["traces.kinds"]["fileset"])
    names = [s.shard.prefix.rsplit("/", 1)[-1] for s in sources]
    merge(logdir, [s.shard for s in sources], threads)  # all but the traces' rows
    traces = logdir.traces
    want = {c: traces.column_dtype(c) for c in traces.columns}
    hosts = [_Host(s, off, want, {c: np.asarray(a) for c, a in d.items()}, n)
             for s, off, d, n in zip(sources, offsets, details, names, strict=True)]
    total = sum(s.rows for s in sources)
    traces.reserve(total)
    alerts = logdir.alerts()
    eager = alerts.kind == EAGER
    earliest_eager = float(alerts.wall_time[int(np.argmax(eager))]) if eager.any() else None
    graph_found = False
    for until in _windows(hosts):
        n0 = len(traces)
        _append(logdir, hosts, until)
        n1 = len(traces)
        if n1 > n0:
            before = len(logdir._alerts)
            logdir._alerts.detect(NewRows(traces, logdir.executions, logdir.outputs,
                                          range(n0, n1), range(0)))
            graph_found = graph_found or len(logdir._alerts) > before
        held = earliest_eager is not None and not graph_found and earliest_eager >= until
        if progress is not None and not held and total:
            progress(n1 / total)
    for h in hosts:
        if h.error:
            logdir.warn(f"{h.name}.parquet: {h.error}; the rest of its graph traces are not "
                        "shown (`tfdbg-tui index --force` writes it anew)")


def _windows(hosts: list[_Host]) -> Iterator[float]:
    """Window after window, the time before which every host's rows have all been read (the
    rows to take next); +inf (and NaN times too) once every shard is read to its end."""
    while True:
        for h in hosts:
            while not h.ended and not len(h):
                h.pull()
        live = [h for h in hosts if not h.ended]
        if not live:
            if any(len(h) for h in hosts):
                yield np.nan  # everything left
            return
        until = min(_last(h.buf) for h in live)
        if any(np.searchsorted(h.buf["wall_time"], until, "left") for h in hosts if len(h)):
            yield until
        else:  # every host read so far stops at `until` or later: read on where it stops
            for h in live:
                if _last(h.buf) <= until:
                    h.pull()


def _append(logdir: DebugLogdir, hosts: list[_Host], until: float) -> None:
    """Append the rows every host has before `until` (all of them for NaN), sorted stably by
    wall time, with their kept health."""
    pieces, kept = [], []
    at = 0
    for h in hosts:
        if not len(h):
            continue
        n = len(h) if np.isnan(until) else int(np.searchsorted(h.buf["wall_time"], until,
                                                                 "left"))
        if n == 0:
            continue
        rows, d = h.take(n)
        pieces.append(rows)
        d["row"] = d["row"] + at
        kept.append(d)
        at += n
    if not pieces:
        return
    window = {c: np.concatenate([p[c] for p in pieces]) for c in pieces[0]}
    details = {c: np.concatenate([d[c] for d in kept]) for c in kept[0]}
    order = stable_order(window["wall_time"])
    if order is not None:
        window = {c: a[order] for c, a in window.items()}
        inverse = np.empty_like(order)
        inverse[order] = np.arange(len(order), dtype=order.dtype)
        details["row"] = inverse[details["row"]]
        by_row = np.argsort(details["row"], kind="stable")
        details = {c: a[by_row] for c, a in details.items()}
    n0 = len(logdir.traces)
    details["row"] = details["row"] + n0
    logdir.traces.extend(window)
    logdir.traces.details.extend(details)
