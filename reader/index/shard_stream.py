"""A run opened from its shards, merged in wall-time order as the shards are read.

`reader.index.shards.merge` puts whole shards together; an open from Parquet shards
(`reader.index.shard_open`) instead reads each shard's traces, executions and outputs — most
of a run's rows — a row group at a time (`reader.index.lazy_shard`), and appends them window
by window in their final order: a window takes, from every host, the rows earlier than the
latest time every part still being read has reached (each shard's rows are in wall-time
order), and sorts them stably (executions with their blocks of outputs). Equal times always
fall in one window, so every row ends where the whole merge puts it (ties in file set order,
NaN last), with the same kept health and alerts: a report from the shards is a direct read's.

The caller's `progress` is told after each window: an open shows the first alerts having read
the first row groups of every host, and they are the run's earliest (every row not merged yet
is later). The executions are merged window by window only when every shard says they are in
wall-time order with their outputs in blocks (`tfdbg-tui index` checks); else they are merged
whole first, and progress is held while a known eager alert could still be preceded by graph
traces, for the same reason.

A shard whose first row groups are not right is not used (`reader.index.shard_store`: its
host is read from the logdir), nor one whose executions, merged whole, are not (`fallback`).
One that fails further on (a damaged page or a forged value, found as it is read)
stops there with a warning naming it; its rows before that stay.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING

import numpy as np

from reader.index.alerts import NewRows
from reader.index.column_spool import put_rows, spool_tables
from reader.index.lazy_shard import LazyShard
from reader.index.order import stable_order
from reader.index.parquet_shards import ShardError
from reader.index.schema import EAGER
from reader.index.shard_rows import Rows, windows

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

Columns = dict[str, np.ndarray]
LENS = "_lens"  # a column the executions carry while merged: their outputs' count
SETTLE = 1 << 19  # alerts found before they are sorted and the pages looked at let go
MAX_RESERVED = 1 << 28  # alerts room is made for up front (5 bytes each, of address space)


def _kept(details: Columns, base: int, n: int, at: int) -> Columns:
    """The kept health of rows [base, base + n) of a host, numbered from `at` on."""
    lo, hi = np.searchsorted(details["row"], [base, base + n])
    out = {c: a[lo:hi] for c, a in details.items()}
    out["row"] = out["row"] - base + at
    return out


class _Host:
    """One shard as the merge takes it."""

    def __init__(self, lazy: LazyShard, logdir: DebugLogdir) -> None:
        self.lazy, self.name = lazy, lazy.shard.prefix.rsplit("/", 1)[-1]
        self.trace_kinds = self.exec_kinds = 0  # where its kinds start in the merged ones
        self.n_outputs = lazy.shard.columns["executions.kinds"]["n_outputs"].astype(np.int64)
        self.next_output = 0
        c = lazy.shard.columns
        self.tdetails = {k: np.asarray(a) for k, a in c["traces.details"].items()}
        self.odetails = {k: np.asarray(a) for k, a in c["outputs.details"].items()}
        self.want = {name: {col: getattr(logdir, name).column_dtype(col)
                            for col in getattr(logdir, name).columns}
                     for name in ("traces", "executions", "outputs")}
        self.traces = Rows(lazy, "traces", self._fix_traces)
        self.execs: Rows | None = Rows(lazy, "executions", self._fix_execs)
        self.outs: Rows | None = Rows(lazy, "outputs", self._fit_outputs)

    def streams(self) -> list[Rows]:
        return [r for r in (self.traces, self.execs, self.outs) if r is not None]

    def _fit(self, name: str, b: Columns) -> Columns:
        n = len(b["wall_time"] if "wall_time" in b else b["execution"])
        return {c: (b[c].astype(dt, copy=False) if c in b else np.zeros(n, dt))  # digests
                for c, dt in self.want[name].items()}

    def _fix_traces(self, b: Columns) -> Columns:
        out = self._fit("traces", b)
        out["kind"] = out["kind"] + np.int32(self.trace_kinds)
        return out

    def _fix_execs(self, b: Columns) -> Columns:
        lens = self.n_outputs[b["kind"]]
        first = self.next_output + np.concatenate([[0], np.cumsum(lens)[:-1]])
        if not np.array_equal(b["first_output"], first[: len(lens)]):
            raise ShardError("executions: outputs out of order")
        self.next_output += int(lens.sum())
        out = self._fit("executions", b)
        out["kind"] = out["kind"] + np.int32(self.exec_kinds)
        out[LENS] = lens
        return out

    def _fit_outputs(self, b: Columns) -> Columns:
        return self._fit("outputs", b)

    def take_execs(self, until: float) -> tuple[Columns, Columns, Columns] | None:
        """The executions earlier than `until`, their outputs and the outputs' kept health
        (numbered within what is taken); None when there are none."""
        assert self.execs is not None and self.outs is not None
        n = self.execs.before(until)
        if n == 0:
            return None
        lens = self.execs.buf[LENS][:n]
        need = int(lens.sum())
        while len(self.outs) < need and not self.outs.ended:
            self.outs.pull()
        owner = np.repeat(np.arange(self.execs.base, self.execs.base + n), lens)
        if len(self.outs) < need or not np.array_equal(self.outs.buf["execution"][:need]
                                                       if need else owner, owner):
            self.execs.stop(self.outs.error or "outputs that are not its executions'")
            return None
        base = self.outs.base
        return (self.execs.take(n), self.outs.take(need),
                _kept(self.odetails, base, need, 0))


def merge_streaming(logdir: DebugLogdir, sources: list[LazyShard], threads: int,
                    fallback: Callable[[int, str], LazyShard],
                    progress: Callable[[float], None] | None = None) -> None:
    """Put `sources` (one per file set of `logdir`, in its order) in place as its index, as
    `reader.index.shards.merge` would (see the module's docstring). `fallback(i, why)`:
    file set i read from the logdir, its shard not usable; `progress(share)`: the share of
    rows merged, after each window."""
    hosts = [_Host(lazy, logdir) for lazy in sources]
    streamed = all(h.lazy.in_order for h in hosts)
    if not streamed:  # the executions, whole, merged first
        for i, h in enumerate(hosts):
            try:
                _whole_execs(h)
            except ShardError as exc:
                hosts[i] = h = _Host(fallback(i, str(exc)), logdir)
                _whole_execs(h)
    with ThreadPoolExecutor(2, "tfdbg-shard-read") as ahead:  # ends before shards close
        _mergewindows(logdir, hosts, streamed, threads, progress, ahead)
    for r in (r for h in hosts for r in h.streams()):  # a host and its parts are a cycle:
        r.buf, r._next = {}, None  # its last batches (~30 MB), the row group a reader's
        getattr(r.batches, "close", lambda: None)()  # frame holds and the host's columns
        r.fix = _as_is  # (`fix` is its method) freed now, not by the rare cyclic collector


def _mergewindows(logdir: DebugLogdir, hosts: list[_Host], streamed: bool, threads: int,
                   progress: Callable[[float], None] | None, ahead: Executor) -> None:
    """The windows (see `merge_streaming`); once the first is merged (its alerts shown: no
    thread competes with it), each part's next row group is read ahead in `ahead`."""
    from reader.index.shards import merge

    tk = ek = 0
    for h in hosts:
        h.trace_kinds, h.exec_kinds = tk, ek
        tk += len(h.lazy.shard.columns["traces.kinds"]["fileset"])
        ek += len(h.lazy.shard.columns["executions.kinds"]["fileset"])
        c = h.lazy.shard.columns
        for p in ("traces.details", *(("outputs.details",) if streamed else ())):
            c[p] = {k: a[:0] for k, a in c[p].items()}
    merge(logdir, [h.lazy.shard for h in hosts], threads)  # all but the rows streamed
    total = sum(h.lazy.rows["traces"] + (h.lazy.rows["executions"] if streamed else 0)
                for h in hosts)
    names = ("traces", "executions", "outputs") if streamed else ("traces",)
    rows = {n: sum(h.lazy.rows[n] for h in hosts) for n in names}
    if not spool_tables(logdir, rows):
        for n in names:  # grown once, not doubled as windows come
            getattr(logdir, n).reserve(rows[n])
    if not len(logdir._alerts):  # as many as the rows, at most (pages used as written)
        room = sum(h.lazy.rows["traces"] + h.lazy.rows["outputs"] for h in hosts)
        if room <= MAX_RESERVED:
            logdir._alerts.reserve(room)
    earliest_eager = _earliest_eager(logdir)
    graph_found = False
    for until in windows([r for h in hosts for r in h.streams() if r is not h.outs]):
        n0, o0 = len(logdir.traces), len(logdir.outputs)
        before = len(logdir._alerts)
        _append_traces(logdir, hosts, until)
        if streamed:
            _append_execs(logdir, hosts, until)
        logdir._alerts.detect(NewRows(logdir.traces, logdir.executions, logdir.outputs,
                                      range(n0, len(logdir.traces)),
                                      range(o0, len(logdir.outputs))))
        settled = logdir._alerts.settle(SETTLE)  # (before their rows' pages are let go)
        graph_found = graph_found or len(logdir._alerts) > before
        held = earliest_eager is not None and not graph_found and earliest_eager >= until
        if progress is not None and not held and total:
            done = len(logdir.traces) + (len(logdir.executions) if streamed else 0)
            progress(done / total)
            settled = True  # (a progress shows the alerts: sorted)
        if logdir.spool is not None and settled:  # what was looked at of the merged columns
            logdir.spool.trim()
        for r in (r for h in hosts for r in h.streams() if r.ahead is None):
            r.ahead = ahead
    logdir._alerts.settle()
    if logdir.spool is not None:
        logdir.spool.close()
        logdir.spool.trim()
    _release_unused()
    for h in hosts:
        for r in h.streams():
            if r.error:
                logdir.warn(f"{h.name}.parquet: {r.error}; the rest of its rows are not "
                            "shown (`tfdbg-tui index --force` writes it anew)")
                break


def _as_is(batch: Columns) -> Columns:
    return batch


def _whole_execs(h: _Host) -> None:
    """A host's executions and outputs read whole into its shard (merged with the rest)."""
    for r in (h.execs, h.outs):
        assert r is not None
        got = list(r.batches)
        part = "executions" if r is h.execs else "outputs"
        h.lazy.shard.columns[part] = (
            {c: np.concatenate([b[c] for b in got]) for c in h.lazy.dtypes[part]} if got
            else {c: np.zeros(0, dt) for c, dt in h.lazy.dtypes[part].items()})
    h.execs = h.outs = None


def _release_unused() -> None:
    """Give back what Arrow's allocator keeps of the row groups decoded (~75 MB for 12.5M
    records; it would stay in the process as long as it runs)."""
    try:
        import pyarrow as pa

        pa.default_memory_pool().release_unused()
    except Exception:  # an allocator without it: nothing to give back
        pass


def _earliest_eager(logdir: DebugLogdir) -> float | None:
    alerts = logdir.alerts()
    eager = alerts.kind == EAGER
    return float(alerts.wall_time[int(np.argmax(eager))]) if eager.any() else None


def _sorted(pieces: list[Columns]) -> tuple[Columns, np.ndarray | None]:
    window = {c: np.concatenate([p[c] for p in pieces]) for c in pieces[0]}
    order = stable_order(window["wall_time"])
    if order is not None:
        window = {c: a[order] for c, a in window.items()}
    return window, order


def _inverse(order: np.ndarray) -> np.ndarray:
    inverse = np.empty_like(order)
    inverse[order] = np.arange(len(order), dtype=order.dtype)
    return inverse


def _renumbered(details: list[Columns], positions: np.ndarray | None, at: int) -> Columns:
    """Kept health (rows numbered within the window as read) at their rows once sorted."""
    out = {c: np.concatenate([d[c] for d in details]) for c in details[0]}
    if positions is not None and len(out["row"]):
        out["row"] = positions[out["row"]]
        by_row = np.argsort(out["row"], kind="stable")
        out = {c: a[by_row] for c, a in out.items()}
    out["row"] = out["row"] + at
    return out


def _put_ordered(logdir: DebugLogdir, name: str, window: Columns) -> None:
    """Append a sorted window to a table, which stays known to be in wall-time order while
    no NaN time came (`Table.ordered_rows`: NaN times sort last, and fail that order)."""
    table = getattr(logdir, name)
    ordered = table.ordered_rows == len(table) and not np.isnan(window["wall_time"]).any()
    put_rows(logdir, name, window)
    if ordered:
        table.ordered_rows = len(table)


def _append_traces(logdir: DebugLogdir, hosts: list[_Host], until: float) -> None:
    pieces, kept, at = [], [], 0
    for h in hosts:
        n = h.traces.before(until)
        if n:
            kept.append(_kept(h.tdetails, h.traces.base, n, at))
            pieces.append(h.traces.take(n))
            at += n
    if not pieces:
        return
    window, order = _sorted(pieces)
    keeps = any(len(k["row"]) for k in kept)  # (no kept health: no row to move)
    details = _renumbered(kept, _inverse(order) if keeps and order is not None else None,
                          len(logdir.traces))
    _put_ordered(logdir, "traces", window)
    logdir.traces.details.extend(details)


def _append_execs(logdir: DebugLogdir, hosts: list[_Host], until: float) -> None:
    """The executions earlier than `until`, sorted stably, each with its block of outputs
    (as `reader.index.order.order_executions` puts them)."""
    execs, outs, kept, at = [], [], [], 0
    for h in hosts:
        got = h.take_execs(until)
        if got is not None:
            e, o, d = got
            d["row"] = d["row"] + at
            execs.append(e)
            outs.append(o)
            kept.append(d)
            at += len(o["execution"])
    if not execs:
        return
    window, order = _sorted(execs)
    lens = window.pop(LENS)
    first = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64)
    o = {c: np.concatenate([p[c] for p in outs]) for c in outs[0]}
    positions = None
    if order is not None:  # each block of outputs follows its execution
        starts = np.concatenate([[0], np.cumsum(np.concatenate(
            [p[LENS] for p in execs]))[:-1]]).astype(np.int64)[order]
        out_order = np.repeat(starts - first, lens) + np.arange(int(lens.sum()))
        o = {c: a[out_order] for c, a in o.items()}
        positions = _inverse(out_order)
    e0, o0 = len(logdir.executions), len(logdir.outputs)
    window["first_output"] = first + o0
    o["execution"] = np.repeat(np.arange(e0, e0 + len(lens)), lens)
    details = _renumbered(kept, positions, o0)
    _put_ordered(logdir, "executions", window)
    put_rows(logdir, "outputs", o)
    logdir.outputs.details.extend(details)
