"""The index as Arrow tables: what `tfdbg-tui export` writes and `tfdbg_tui.open()` returns.

Why Arrow: it is the hand-off to the tools that already scale past one machine and to
notebooks (Parquet files for DuckDB, Spark, Dask; pandas DataFrames), without copying the
numpy columns of the index row by row. Strings the index interns (op names, graphs, devices,
hosts) become dictionary columns over the index's own string table, so a million rows of
one op name cost a million small integers, as in memory.

Counts the mode did not record are null (the index's -1), never 0: a CURT_HEALTH run knows
whether a tensor holds NaN/∞, not how many. Every column is described in docs/export.md;
`COLUMNS` below is that list, and a test checks that the two agree.

Big tables come in batches of `BATCH` rows (the health counts of a graph trace are read back
from its record by offset, see `reader.index.detail`), so writing a 12.5M-row run holds one
batch at a time.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir
from reader.io.tensors import DTYPES
from reader.modes import MODE_NAMES

if TYPE_CHECKING:
    import pyarrow as pa

BATCH = 1 << 20
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


def pyarrow() -> Any:
    """pyarrow, or an ImportError saying which extra brings it."""
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError("exporting tables needs pyarrow: pip install 'tfdbg-tui[export]'"
                          ) from None
    return pa


class Tables:
    """Builds the tables of one indexed run (read the logdir first)."""

    @staticmethod
    def check() -> None:
        """ImportError (naming the extra) before a logdir is read for nothing."""
        pyarrow()

    def __init__(self, logdir: DebugLogdir) -> None:
        self.pa = pyarrow()
        self.logdir = logdir
        sets = logdir.filesets
        hosts = sorted({fs.host for fs in sets})
        self._host_dict = self.pa.array(hosts, self.pa.string())
        host_of = {h: i for i, h in enumerate(hosts)}
        self._host_of_set = np.array([host_of[fs.host] for fs in sets] or [0], np.int32)
        # the index's strings, plus graph names (a graph id's name: few, a loop is fine);
        # the index itself is not changed
        words = logdir.strings.all()
        ids = {w: i for i, w in enumerate(words)}
        names = np.full(max(len(words), 1), -1, np.int32)
        for gid, graph in logdir.graphs.graphs.items():
            i = ids.get(gid, -1)
            if i >= 0 and graph.name:
                if graph.name not in ids:
                    ids[graph.name] = len(words)
                    words.append(graph.name)
                names[i] = ids[graph.name]
        self._empty = ids.get("", -1)
        self.strings = self.pa.array(words, self.pa.string())
        self._graph_name = names

    # ------------------------------------------------------------------ columns
    def _text(self, ids: np.ndarray) -> Any:
        """String ids of the index (-1 or an empty string: null) as a dictionary column."""
        ids = np.asarray(ids, np.int32)
        null = (ids < 0) | (ids == self._empty)
        indices = self.pa.array(np.where(null, 0, ids), self.pa.int32(), mask=null)
        return self.pa.DictionaryArray.from_arrays(indices, self.strings)

    def _host(self, filesets: np.ndarray) -> Any:
        idx = self._host_of_set[np.asarray(filesets, np.int64)] if len(filesets) else \
            np.zeros(0, np.int32)
        return self.pa.DictionaryArray.from_arrays(self.pa.array(idx, self.pa.int32()),
                                                   self._host_dict)

    def _known(self, values: np.ndarray, kind: Any) -> Any:
        """A count column: the index's -1 ("not recorded") is null."""
        values = np.asarray(values)
        return self.pa.array(values, kind, mask=values < 0)

    def _names(self, numbers: np.ndarray, table: dict[int, Any]) -> Any:
        """Enum numbers (modes, dtypes) as a dictionary column of their names."""
        numbers = np.asarray(numbers, np.int64)
        uniq, inverse = np.unique(numbers, return_inverse=True)
        words = []
        for n in uniq.tolist():  # a negative number is masked below (null)
            entry = table.get(n)
            words.append((entry[0] if isinstance(entry, tuple) else entry) or f"#{n}")
        mask = uniq[inverse] < 0 if len(numbers) else np.zeros(0, bool)
        return self.pa.DictionaryArray.from_arrays(
            self.pa.array(inverse.astype(np.int32), self.pa.int32(), mask=mask),
            self.pa.array(words, self.pa.string()))

    def _health(self, h: dict[str, np.ndarray]) -> dict[str, Any]:
        pa = self.pa
        bad = np.asarray(h["bad"])
        out = {"tensor_id": self._known(h["tensor_id"], pa.int64()),
               "dtype": self._names(h["dtype"], DTYPES)}
        for name in COUNTS:
            out[name] = self._known(h[name], pa.int64())
        out["bad"] = pa.array(bad > 0, pa.bool_(), mask=bad < 0)
        return out

    # ------------------------------------------------------------------ tables
    def graph_traces(self) -> Iterator[pa.RecordBatch]:
        t = self.logdir.traces
        n = len(t)
        for start in range(0, n, BATCH) or [0]:
            rows = np.arange(start, min(n, start + BATCH), dtype=np.int64)
            gid = t.graph_id[rows]
            cols = {
                "row": self.pa.array(rows), "wall_time": self.pa.array(t.wall_time[rows]),
                "host": self._host(t.fileset[rows]),
                "graph_id": self._text(gid), "graph_name": self._text(self._graph_name[gid]),
                "op_name": self._text(t.op_name[rows]), "op_type": self._text(t.op_type[rows]),
                "output_slot": self.pa.array(np.asarray(t.slot[rows], np.int32)),
                "device": self._text(t.device[rows]),
                "mode": self._names(t.mode[rows], MODE_NAMES),
                **self._health(t.health_columns(rows)),
                "file_set": self.pa.array(np.asarray(t.fileset[rows], np.int32)),
                "offset": self.pa.array(t.offset[rows]),
            }
            yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def executions(self) -> Iterator[pa.RecordBatch]:
        e = self.logdir.executions
        n = len(e)
        for start in range(0, n, BATCH) or [0]:
            rows = np.arange(start, min(n, start + BATCH), dtype=np.int64)
            gid = np.asarray(e.graph_id[rows], np.int32)
            fileset = e.fileset[rows]
            cols = {
                "row": self.pa.array(rows), "wall_time": self.pa.array(e.wall_time[rows]),
                "host": self._host(fileset), "op_type": self._text(e.op_type[rows]),
                "graph_id": self._text(gid),
                "graph_name": self._text(np.where(gid >= 0, self._graph_name[gid], -1)),
                "num_outputs": self.pa.array(np.asarray(e.num_outputs[rows], np.int64)),
                "output_rows": self.pa.array(np.asarray(e.n_outputs[rows], np.int64)),
                "mode": self._names(e.mode[rows], MODE_NAMES),
                "file_set": self.pa.array(np.asarray(fileset, np.int32)),
                "offset": self.pa.array(e.offset[rows]),
            }
            yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def eager_outputs(self) -> Iterator[pa.RecordBatch]:
        o, e = self.logdir.outputs, self.logdir.executions
        n = len(o)
        for start in range(0, n, BATCH) or [0]:
            rows = np.arange(start, min(n, start + BATCH), dtype=np.int64)
            ex = np.asarray(o.execution[rows], np.int64)
            cols = {
                "row": self.pa.array(rows), "execution": self.pa.array(ex),
                "output_slot": self.pa.array(np.asarray(o.slot[rows], np.int32)),
                "wall_time": self.pa.array(np.asarray(e.wall_time)[ex]),
                "host": self._host(e.fileset[ex]),
                "op_type": self._text(e.op_type[ex]),
                "mode": self._names(e.mode[ex], MODE_NAMES),
                **self._health(o.health_columns(rows)),
            }
            yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def stack_frames(self) -> Iterator[pa.RecordBatch]:
        frames = list(self.logdir.sources.frame_rows())
        cols = {
            "frame_id": self.pa.array([f[0] for f in frames], self.pa.string()),
            "host": self.pa.array([f[1] for f in frames], self.pa.string()),
            "file": self.pa.array([f[2] for f in frames], self.pa.string()),
            "line": self.pa.array([f[3] for f in frames], self.pa.int64()),
            "function": self.pa.array([f[4] for f in frames], self.pa.string()),
            "column": self.pa.array([f[5] for f in frames], self.pa.int64()),
        }
        yield self.pa.record_batch(list(cols.values()), names=list(cols))

    def alerts(self, diagnosed: list[dict[str, Any]]) -> Iterator[pa.RecordBatch]:
        """Every alert in wall-time order; the first ones (`diagnosed`: the report's entries,
        `tfdbg_tui.commands.report.build`) with their user frame and diagnosis."""
        pa, logdir = self.pa, self.logdir
        a = logdir.alerts()
        kind = np.asarray(a.kind, np.int8)
        index = np.asarray(a.index, np.int64)
        slot = np.asarray(a.slot, np.int32)
        graph, eager = kind == GRAPH, kind == EAGER
        t, e, o = logdir.traces, logdir.executions, logdir.outputs
        n = len(kind)
        # per alert: its tensor row (a trace, or an eager output) for the health counts
        health = {c: np.full(n, -1, np.int64) for c in ("size", "nan", "neg_inf", "pos_inf")}
        fileset = np.zeros(n, np.int64)
        op_type = np.full(n, -1, np.int32)
        op_name = np.full(n, -1, np.int32)
        gname = np.full(n, -1, np.int32)
        device = np.full(n, -1, np.int32)
        if graph.any():
            rows = index[graph]
            h = t.health_columns(rows)
            for c in health:
                health[c][graph] = h[c]
            fileset[graph] = t.fileset[rows]
            op_type[graph] = t.op_type[rows]
            op_name[graph] = t.op_name[rows]
            gname[graph] = self._graph_name[np.asarray(t.graph_id[rows], np.int64)]
            device[graph] = t.device[rows]
        if eager.any():
            ex = index[eager]
            first = e.first_output[ex]
            h = o.health_columns(first + slot[eager])
            for c in health:
                health[c][eager] = h[c]
            fileset[eager] = e.fileset[ex]
            op_type[eager] = e.op_type[ex]
            gid = np.asarray(e.graph_id[ex], np.int64)
            gname[eager] = np.where(gid >= 0, self._graph_name[gid], -1)
        extra = _diagnosis_columns(diagnosed, n)
        cols = {
            "rank": pa.array(np.arange(n, dtype=np.int64)),
            "kind": self._names(kind, {GRAPH: "graph", EAGER: "eager"}),
            "row": pa.array(index), "output_slot": pa.array(slot),
            "wall_time": pa.array(np.asarray(a.wall_time, np.float64)),
            "host": self._host(fileset), "op_type": self._text(op_type),
            "op_name": self._text(op_name), "graph_name": self._text(gname),
            "device": self._text(device),
            **{c: self._known(health[c], pa.int64()) for c in health},
            **{c: pa.array(v, kind_of_extra(pa, c)) for c, v in extra.items()},
        }
        yield pa.record_batch(list(cols.values()), names=list(cols))

    def batches(self, name: str, diagnosed: list[dict[str, Any]] | None = None
                ) -> Iterator[pa.RecordBatch]:
        if name == "alerts":
            return self.alerts(diagnosed or [])
        return {"executions": self.executions, "eager_outputs": self.eager_outputs,
                "graph_traces": self.graph_traces, "stack_frames": self.stack_frames}[name]()

    def table(self, name: str, diagnosed: list[dict[str, Any]] | None = None) -> pa.Table:
        return self.pa.Table.from_batches(list(self.batches(name, diagnosed)))


_EXTRA_INT = ("user_line", "origin_row", "fix_line")


def kind_of_extra(pa: Any, column: str) -> Any:
    return pa.int64() if column in _EXTRA_INT else pa.string()


def _diagnosis_columns(diagnosed: list[dict[str, Any]], n: int) -> dict[str, list[Any]]:
    """user_file … fix_line for the first alerts (null for the others, and where unknown)."""
    names = COLUMNS["alerts"][COLUMNS["alerts"].index("user_file"):]
    out: dict[str, list[Any]] = {c: [None] * n for c in names}
    for k, entry in enumerate(diagnosed[:n]):
        uf = entry.get("user_frame") or {}
        out["user_file"][k] = uf.get("file")
        out["user_line"][k] = uf.get("line")
        out["user_function"][k] = uf.get("function")
        diag = entry.get("diagnosis") or {}
        out["diagnosis"][k] = diag.get("explanation") or entry.get("diagnosis_error")
        origin = diag.get("origin") or {}
        out["origin_kind"][k] = origin.get("kind")
        out["origin_row"][k] = origin.get("index")
        out["origin_op"][k] = origin.get("op_name") or origin.get("op_type")
        fix = origin.get("fix_frame") or {}
        out["fix_file"][k] = fix.get("file")
        out["fix_line"][k] = fix.get("line")
    return out
