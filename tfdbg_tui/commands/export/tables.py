"""The index as Arrow tables: what `tfdbg-tui export` writes and `tfdbg_tui.open()` returns.

Why Arrow: it is the hand-off to the tools that already scale past one machine and to
notebooks (Parquet files for DuckDB, Spark, Dask; pandas DataFrames), without copying the
numpy columns of the index row by row. Strings the index interns (op names, graphs, devices,
hosts) become dictionary columns over the index's own string table, so a million rows of
one op name cost a million small integers, as in memory. Arrays are made from the numpy
buffers (`arrow`), never through `pyarrow.array`, which would import pandas.

Counts the mode did not record are null (the index's -1), never 0: a CURT_HEALTH run knows
whether a tensor holds NaN/∞, not how many. Every column is described in docs/export.md;
`COLUMNS` below is that list, and a test checks that the two agree.

Big tables come in batches of `BATCH` rows, so writing a 12.5M-row run holds a few batches
at a time. The health counts of a tensor row are not in the index: they come from what the
load kept of them (`kept`, `tfdbg_tui.commands.export.kept`), or else are read back from the
record by offset (`reader.index.detail`), which is most of the work: with a thread pool
(`pool`), the next batches' health is read while the current one is built and written (the
compiled read releases the GIL), and the alerts take their counts from those same reads
instead of reading their rows a second time (`AlertCounts`), or from the kept health.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING, Any

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from reader.io.tensors import DTYPES
from reader.modes import MODE_NAMES
from tfdbg_tui.commands.export import arrow
from tfdbg_tui.commands.export.alerts import ALERT_COUNTS, AlertCounts, diagnosis_columns
from tfdbg_tui.commands.export.kept import Gathered, KeptHealth

if TYPE_CHECKING:
    import pyarrow as pa

BATCH = 1 << 18  # rows per record batch (a Parquet row group)
AHEAD = 2  # batches whose health is being read ahead, with a pool
TABLES = ("executions", "eager_outputs", "graph_traces", "alerts", "stack_frames")
COUNTS = ("rank", "size", "neg_inf", "pos_inf", "nan", "neg", "zero", "pos")
HEALTH = ("tensor_id", "dtype", *COUNTS, "bad")
COLUMNS: dict[str, tuple[str, ...]] = {
    "executions": ("row", "wall_time", "host", "op_type", "graph_id", "graph_name",
                   "num_outputs", "output_rows", "mode", "file_set", "offset"),
    "eager_outputs": ("row", "execution", "output_slot", "wall_time", "host", "op_type",
                      "mode", *HEALTH),
    "graph_traces": ("row", "wall_time", "host", "graph_id", "graph_name", "op_name",
                     "op_type", "output_slot", "device", "mode", *HEALTH, "file_set",
                     "offset"),
    "alerts": ("rank", "kind", "row", "output_slot", "wall_time", "host", "op_type", "op_name",
               "graph_name", "device", "size", "nan", "neg_inf", "pos_inf", "user_file",
               "user_line", "user_function", "diagnosis", "origin_kind", "origin_row",
               "origin_op", "fix_file", "fix_line"),
    "stack_frames": ("frame_id", "host", "file", "line", "function", "column"),
}
Health = dict[str, np.ndarray]


def pyarrow() -> Any:
    """pyarrow, or an ImportError saying which extra brings it."""
    try:
        import pyarrow as pa
    except ImportError as exc:
        if _installed("pyarrow"):  # there, but it would not load
            text = " ".join(str(exc).split())[:200]
            raise ImportError(f"pyarrow is installed but could not be loaded ({text}); out of "
                              "memory (an address-space limit)?") from None
        raise ImportError("exporting tables needs pyarrow: pip install 'tfdbg-tui[export]'"
                          ) from None
    return pa


def _installed(name: str) -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError, AttributeError):
        return False


class Tables:
    """Builds the tables of one indexed run (read the logdir first). With `pool`, health is
    read ahead on its threads, or taken from `kept` (kept during the load);
    `alert_counts` collects the alerts' counts on the way."""

    @staticmethod
    def check() -> None:
        """ImportError (naming the extra) before a logdir is read for nothing."""
        pyarrow()

    def __init__(self, logdir: DebugLogdir, pool: Executor | None = None,
                 alert_counts: AlertCounts | None = None, batch: int = BATCH,
                 kept: KeptHealth | None = None) -> None:
        self.pa = pyarrow()
        self.logdir = logdir
        self.batch = max(1, batch)
        self.pool = pool
        self.kept = kept
        self.alert_counts = alert_counts
        sets = logdir.filesets
        hosts = sorted({fs.host for fs in sets})
        self._host_dict = arrow.strings(self.pa, hosts)
        host_of = {h: i for i, h in enumerate(hosts)}
        self._host_of_set = np.array([host_of[fs.host] for fs in sets] or [0], np.int32)
        # the index's strings, plus graph names (a graph id's name: few, a loop is fine);
        # the index itself is not changed
        words = logdir.strings.all()
        ids = {w: i for i, w in enumerate(words)}
        names = np.full(max(len(words), 1), -1, np.int32)
        for gid, graph in list(logdir.graphs.graphs.items()):  # (a copy: the load may go on)
            i = ids.get(gid, -1)
            if i >= 0 and graph.name:
                if graph.name not in ids:
                    ids[graph.name] = len(words)
                    words.append(graph.name)
                names[i] = ids[graph.name]
        self._empty = ids.get("", -1)
        self.strings = arrow.strings(self.pa, words)
        self._words = words
        self._graph_name = names

    # ------------------------------------------------------------------ columns
    def _num(self, values: Any, kind: Any) -> Any:
        return arrow.numbers(self.pa, np.asarray(values), kind)

    def _text(self, ids: np.ndarray) -> Any:
        """String ids of the index (-1 or an empty string: null) as a dictionary column."""
        ids = np.asarray(ids, np.int32)
        null = (ids < 0) | (ids == self._empty)
        return arrow.dictionary(self.pa, np.where(null, 0, ids), self.strings, null)

    def _host(self, filesets: np.ndarray) -> Any:
        idx = self._host_of_set[np.asarray(filesets, np.int64)] if len(filesets) else \
            np.zeros(0, np.int32)
        return arrow.dictionary(self.pa, idx, self._host_dict)

    def _known(self, values: np.ndarray) -> Any:
        """A count column (int64): the index's -1 ("not recorded") is null."""
        values = np.asarray(values)
        return arrow.numbers(self.pa, values, self.pa.int64(), values < 0)

    def _names(self, numbers: np.ndarray, table: dict[int, Any]) -> Any:
        """Enum numbers (modes, dtypes) as a dictionary column of their names."""
        uniq, inverse = _small_unique(np.asarray(numbers, np.int64))
        words = []
        for n in uniq.tolist():  # a negative number is masked below (null)
            entry = table.get(n)
            words.append((entry[0] if isinstance(entry, tuple) else entry) or f"#{n}")
        mask = uniq[inverse] < 0 if len(inverse) else np.zeros(0, bool)
        return arrow.dictionary(self.pa, inverse, arrow.strings(self.pa, words), mask)

    def _health(self, h: Health) -> dict[str, Any]:
        bad = np.asarray(h["bad"])
        out = {"tensor_id": self._known(h["tensor_id"]), "dtype": self._names(h["dtype"], DTYPES)}
        for name in COUNTS:
            out[name] = self._known(h[name])
        out["bad"] = arrow.booleans(self.pa, bad > 0, bad < 0)
        return out

    def _blocks(self, name: str, first: int = 0) -> Iterator[tuple[np.ndarray, Health]]:
        """(rows, their health) per batch of tensor table `name` (traces, outputs), in
        order: kept during the load (`kept`) when they were, else read back; with a pool,
        up to `AHEAD` batches are being read while the caller works on one."""
        table = getattr(self.logdir, name)
        n, read = len(table), table.health_columns
        # (an empty table still has one, empty, batch: its file has the columns)
        starts = range(first, n, self.batch) or range(int(n == 0))

        def rows_of(start: int) -> np.ndarray:
            return np.arange(start, min(n, start + self.batch), dtype=np.int64)

        kept = self.kept
        if self.pool is None:
            for start in starts:
                rows = rows_of(start)
                early = kept.take(name, rows) if kept is not None else None
                yield rows, early.result() if early is not None else read(rows)
            return
        pool = self.pool

        def started(start: int) -> tuple[np.ndarray, Future[Health] | Gathered]:
            rows = rows_of(start)
            early = kept.take(name, rows) if kept is not None else None
            return rows, early if early is not None else pool.submit(read, rows)

        pending: deque[tuple[np.ndarray, Future[Health] | Gathered]] = deque()
        todo = iter(starts)
        try:
            for start in todo:
                pending.append(started(start))
                if len(pending) >= AHEAD:
                    break
            while pending:
                rows, future = pending.popleft()
                nxt = next(todo, None)
                if nxt is not None:
                    pending.append(started(nxt))
                yield rows, future.result()
        finally:
            for _, future in pending:
                future.cancel()

    def graph_name(self, gid: int) -> str | None:
        """The name these tables give graph id `gid` (a string id), None if none."""
        i = int(self._graph_name[gid]) if 0 <= gid < len(self._graph_name) else -1
        return self._words[i] if i >= 0 else None

    # ------------------------------------------------------------------ tables
    def graph_traces(self, start: int = 0) -> Iterator[pa.RecordBatch]:
        """From row `start` on (the rows before it were written already: `early`)."""
        for rows, h in self._blocks("traces", start):
            if self.alert_counts is not None and len(rows):
                self.alert_counts.take(GRAPH, int(rows[0]), h)
            yield self.trace_batch(rows, h)

    def trace_batch(self, rows: np.ndarray, h: Health) -> pa.RecordBatch:
        """The graph_traces rows `rows`, whose health is `h`."""
        t = self.logdir.traces
        gid = t.graph_id[rows]
        cols = {
            "row": self._num(rows, self.pa.int64()),
            "wall_time": self._num(t.wall_time[rows], self.pa.float64()),
            "host": self._host(t.fileset[rows]),
            "graph_id": self._text(gid), "graph_name": self._text(self._graph_name[gid]),
            "op_name": self._text(t.op_name[rows]), "op_type": self._text(t.op_type[rows]),
            "output_slot": self._num(t.slot[rows], self.pa.int32()),
            "device": self._text(t.device[rows]),
            "mode": self._names(t.mode[rows], MODE_NAMES),
            **self._health(h),
            "file_set": self._num(t.fileset[rows], self.pa.int32()),
            "offset": self._num(t.offset[rows], self.pa.int64()),
        }
        return self.pa.record_batch(list(cols.values()), names=list(cols))

    def executions(self) -> Iterator[pa.RecordBatch]:
        e = self.logdir.executions
        n = len(e)
        for start in range(0, n, self.batch) or [0]:
            rows = np.arange(start, min(n, start + self.batch), dtype=np.int64)
            gid = np.asarray(e.graph_id[rows], np.int32)
            fileset = e.fileset[rows]
            cols = {
                "row": self._num(rows, self.pa.int64()),
                "wall_time": self._num(e.wall_time[rows], self.pa.float64()),
                "host": self._host(fileset), "op_type": self._text(e.op_type[rows]),
                "graph_id": self._text(gid),
                "graph_name": self._text(np.where(gid >= 0, self._graph_name[gid], -1)),
                "num_outputs": self._num(e.num_outputs[rows], self.pa.int64()),
                "output_rows": self._num(e.n_outputs[rows], self.pa.int64()),
                "mode": self._names(e.mode[rows], MODE_NAMES),
                "file_set": self._num(fileset, self.pa.int32()),
                "offset": self._num(e.offset[rows], self.pa.int64()),
            }
            yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def eager_outputs(self) -> Iterator[pa.RecordBatch]:
        o, e = self.logdir.outputs, self.logdir.executions
        for rows, h in self._blocks("outputs"):
            if self.alert_counts is not None and len(rows):
                self.alert_counts.take(EAGER, int(rows[0]), h)
            ex = np.asarray(o.execution[rows], np.int64)
            cols = {
                "row": self._num(rows, self.pa.int64()),
                "execution": self._num(ex, self.pa.int64()),
                "output_slot": self._num(o.slot[rows], self.pa.int32()),
                "wall_time": self._num(np.asarray(e.wall_time)[ex], self.pa.float64()),
                "host": self._host(e.fileset[ex]),
                "op_type": self._text(e.op_type[ex]),
                "mode": self._names(e.mode[ex], MODE_NAMES),
                **self._health(h),
            }
            yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def stack_frames(self) -> Iterator[pa.RecordBatch]:
        pa = self.pa
        frames = list(self.logdir.sources.frame_rows())
        cols = {
            "frame_id": arrow.strings(pa, [f[0] for f in frames]),
            "host": arrow.strings(pa, [f[1] for f in frames]),
            "file": arrow.strings(pa, [f[2] for f in frames]),
            "line": arrow.optional_ints(pa, [f[3] for f in frames]),
            "function": arrow.strings(pa, [f[4] for f in frames]),
            "column": arrow.optional_ints(pa, [f[5] for f in frames]),
        }
        yield pa.record_batch(list(cols.values()), names=list(cols))

    def alerts(self, diagnosed: list[dict[str, Any]]) -> Iterator[pa.RecordBatch]:
        """Every alert in wall-time order, in batches; the first ones (`diagnosed`: the
        report's entries, `tfdbg_tui.commands.report.build`) with their user frame and
        diagnosis. Their tensors' counts: gathered by the other tables (`alert_counts`),
        else kept during the load (`kept`), else read back."""
        a = self.logdir.alerts()
        kind, index = np.asarray(a.kind, np.int8), np.asarray(a.index, np.int64)
        slot, wall = np.asarray(a.slot, np.int32), np.asarray(a.wall_time, np.float64)
        n = len(kind)
        counts, kept = self.alert_counts, self.kept
        gathered = counts.values if counts is not None and counts.complete(self.logdir) \
            else None
        use_kept = gathered is None and kept is not None and kept.complete()
        for start in range(0, n, self.batch) or range(1):
            block = slice(start, min(n, start + self.batch))
            health = {c: v[block] for c, v in gathered.items()} if gathered is not None \
                else None
            yield self._alert_block(kind[block], index[block], slot[block], wall[block],
                                    start, health, use_kept, diagnosed[block])

    def _alert_block(self, kind: np.ndarray, index: np.ndarray, slot: np.ndarray,
                     wall: np.ndarray, start: int, health: dict[str, np.ndarray] | None,
                     use_kept: bool, diagnosed: list[dict[str, Any]]) -> pa.RecordBatch:
        pa, logdir = self.pa, self.logdir
        graph, eager = kind == GRAPH, kind == EAGER
        t, e, o = logdir.traces, logdir.executions, logdir.outputs
        n = len(kind)
        rows = {GRAPH: index[graph], EAGER: e.first_output[index[eager]] + slot[eager]}
        if health is None:
            health = {c: np.full(n, -1, np.int64) for c in ALERT_COUNTS}
            for k, mask, table in ((GRAPH, graph, t), (EAGER, eager, o)):
                if not mask.any():
                    continue
                got = self.kept.columns("traces" if k == GRAPH else "outputs", rows[k],
                                        ALERT_COUNTS) if use_kept and self.kept is not None \
                    else table.health_columns(rows[k])
                for c in ALERT_COUNTS:
                    health[c][mask] = got[c]
        fileset = np.zeros(n, np.int64)
        op_type = np.full(n, -1, np.int32)
        op_name = np.full(n, -1, np.int32)
        gname = np.full(n, -1, np.int32)
        device = np.full(n, -1, np.int32)
        if graph.any():
            tr = rows[GRAPH]
            fileset[graph] = t.fileset[tr]
            op_type[graph] = t.op_type[tr]
            op_name[graph] = t.op_name[tr]
            gname[graph] = self._graph_name[np.asarray(t.graph_id[tr], np.int64)]
            device[graph] = t.device[tr]
        if eager.any():
            ex = index[eager]
            fileset[eager] = e.fileset[ex]
            op_type[eager] = e.op_type[ex]
            gid = np.asarray(e.graph_id[ex], np.int64)
            gname[eager] = np.where(gid >= 0, self._graph_name[gid], -1)
        cols = {
            "rank": self._num(np.arange(start, start + n, dtype=np.int64), pa.int64()),
            "kind": self._names(kind, {GRAPH: "graph", EAGER: "eager"}),
            "row": self._num(index, pa.int64()), "output_slot": self._num(slot, pa.int32()),
            "wall_time": self._num(wall, pa.float64()),
            "host": self._host(fileset), "op_type": self._text(op_type),
            "op_name": self._text(op_name), "graph_name": self._text(gname),
            "device": self._text(device),
            **{c: self._known(health[c]) for c in ALERT_COUNTS},
            **diagnosis_columns(pa, COLUMNS["alerts"][COLUMNS["alerts"].index("user_file"):],
                                diagnosed, n),
        }
        return pa.record_batch(list(cols.values()), names=list(cols))

    def batches(self, name: str, diagnosed: list[dict[str, Any]] | None = None,
                start: int = 0) -> Iterator[pa.RecordBatch]:
        """The record batches of table `name` (of graph_traces: from row `start` on)."""
        if name == "alerts":
            return self.alerts(diagnosed or [])
        if name == "graph_traces":
            return self.graph_traces(start)
        return {"executions": self.executions, "eager_outputs": self.eager_outputs,
                "graph_traces": self.graph_traces, "stack_frames": self.stack_frames}[name]()

    def table(self, name: str, diagnosed: list[dict[str, Any]] | None = None) -> pa.Table:
        return self.pa.Table.from_batches(list(self.batches(name, diagnosed)))


def _small_unique(numbers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """`np.unique(numbers, return_inverse=True)` (inverse as int32), by counting when the
    numbers are small (enum values: modes, dtypes), which is a few passes instead of a sort
    of millions."""
    if len(numbers) and -1 <= int(numbers.min()) and int(numbers.max()) < 1 << 12:
        shifted = numbers + 1
        present = np.flatnonzero(np.bincount(shifted))
        lut = np.zeros(int(present[-1]) + 1, np.int32)
        lut[present] = np.arange(len(present), dtype=np.int32)
        return present - 1, lut[shifted]
    uniq, inverse = np.unique(numbers, return_inverse=True)
    return uniq, inverse.reshape(-1).astype(np.int32)
