"""A run's hosts indexed separately, then merged into one index in wall-time order.

Each host (file set) of a run is written by its own process and read on its own: nothing in
one host's `.graph_execution_traces` or `.execution` file refers to another's rows. So the
unit of work is one file set — `index_fileset`, the *shard function* — and its result, a
`Shard`, is plain columns (numpy arrays, the strings they refer to, where reading stopped).
`merge` puts shards together: string ids and kinds renumbered, rows concatenated, then put
in wall-time order across hosts (executions with their blocks of outputs), alerts found
again over the merged rows. The same two functions serve

- several hosts on one machine: `read_sharded` runs the shard function in this process and
  spawned workers (`reader.index.sharding`), at most one process per core, when the big
  files hold at least `PARALLEL_MIN_BYTES` (`TFDBG_TUI_PARALLEL_MIN_BYTES`); smaller runs
  (and runs of more than `MAX_SHARDS` file sets) are read here, file set after file set, and
  put in the same order (`reorder`), so row numbers never depend on how a run was read;
- logdirs too big for one machine (docs/scale-out.md): an engine maps the shard function
  over file sets and the merge builds the index the TUI opens.

Rows that arrive later (a live run) are appended in the order they are read, as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from reader.index.alerts import NewRows
from reader.index.order import (
    merge_runs,
    order_executions,
    order_traces,
    renumber_details,
    wall_time_order,
)
from reader.index.schema import tensor_parts
from reader.index.spool import Spooled, spool
from reader.io.cursors import Cursor
from reader.io.discovery import FileSet
from reader.io.regular import check_regular

if TYPE_CHECKING:
    from reader.index.logdir import DebugLogdir

BIG = ("graph_execution_traces", "execution")
SMALL = ("source_files", "stack_frames", "graphs")
PARALLEL_ENV = "TFDBG_TUI_PARALLEL_MIN_BYTES"
PARALLEL_MIN_BYTES = 64 << 20
WORKERS_ENV = "TFDBG_TUI_WORKERS"
MAX_SHARDS = 1024  # more file sets than this are read in this process (each is small then)
# kind fields holding string ids (-1: none), per table
STRING_KINDS = {"traces": ("graph_id", "op_name", "op_type", "device"),
                "executions": ("op_type", "graph_id")}


@dataclass
class Shard:
    """What indexing one file set's big files produced (picklable: plain columns)."""

    prefix: str
    strings: list[str]
    columns: dict[str, dict[str, np.ndarray]]  # "traces", "traces.kinds", "traces.details", …
    trace_keys: list[tuple[int, int, int]]
    modes: list[int]
    warnings: list[str]
    suppressed: int
    corrupt: int
    cursors: dict[str, Cursor] = field(default_factory=dict)
    spooled: Spooled | None = None  # the columns, while in shared memory (`spool`)
    failed_read: str = ""  # the warning of a read that failed, if one did: never written


def index_fileset(cls: type[DebugLogdir], path: str, run_id: str, fileset: FileSet,
                  progress: Callable[[int, int], None] | None = None,
                  digests: bool = False, spool_to: str | None = None) -> Shard:
    """The shard function: index one file set (all six files; its graphs give the op types
    of its traces) and return its big files' part of the index as columns (with the rows'
    summary digests when the merged index keeps them: `merge` needs the same columns; with
    `spool_to`, a directory: the columns written there, see `reader.index.spool`)."""
    logdir = cls(path, run_id, filesets=[fileset], digests=digests)
    logdir.read_files(progress=progress)
    # views, not copies: sorting, pickling or the merge copies them once anyway
    columns = {name: {c: t.col(c) for c in t.columns} for name, t in tensor_parts(logdir).items()}
    order_traces(columns)  # here, in parallel: the merge then sees sorted runs
    p = logdir.problems
    spooled = None
    if spool_to is not None:
        try:
            spooled = spool(columns, spool_to, os.path.basename(fileset.prefix))
            columns = {}
        except OSError:  # shared memory full (a container's 64 MB /dev/shm): by the pipe
            spooled = None
    return Shard(fileset.prefix, logdir.strings.all(), columns,
                 sorted(set(logdir._trace_keys.values())), sorted(logdir.modes),
                 list(p.warnings), p.suppressed, p.corrupt_records,
                 {s: logdir.file_cursor(0, s) for s in BIG}, spooled, p.first_failed_read)


def _remap_kinds(kinds: dict[str, np.ndarray], strings: np.ndarray, names: tuple[str, ...],
                 fsi: int) -> dict[str, np.ndarray]:
    out = dict(kinds)
    for name in names:
        ids = kinds[name]
        out[name] = np.where(ids >= 0, strings[np.maximum(ids, 0)], -1).astype(ids.dtype)
    out["fileset"] = np.full(len(kinds["fileset"]), fsi, kinds["fileset"].dtype)
    return out


def _fit(part: dict[str, np.ndarray], spec: dict[str, np.dtype]) -> dict[str, np.ndarray]:
    """A shard's columns as the merged index keeps them: a shard indexed without digests
    has them unknown (0); a shard's digests the merged index does not keep are dropped."""
    def column(c: str) -> np.ndarray:
        if c == "digest" and c not in part:
            return np.zeros(len(next(iter(part.values()))), np.uint64)
        return part[c]

    return {c: column(c) for c in spec}


def _concat(parts: list[dict[str, np.ndarray]], spec: dict[str, np.dtype]
            ) -> dict[str, np.ndarray]:
    """The merged columns of `spec` (see `_fit`)."""
    fitted = [_fit(p, spec) for p in parts]
    return {c: (np.concatenate([p[c] for p in fitted]).astype(dt, copy=False) if fitted
                else np.zeros(0, dt)) for c, dt in spec.items()}


def merge(logdir: DebugLogdir, shards: list[Shard], threads: int = 1) -> None:
    """Put shards (one per file set of `logdir`, in its order) in place as its index, rows
    in wall-time order, alerts found again over them. `logdir` has read nothing of its big
    files yet (its small files may be read: their objects are not part of a shard). The
    traces (the big table) are merged by `merge_runs`, with `threads` threads."""
    parts = tensor_parts(logdir)
    by_prefix = {fs.prefix: i for i, fs in enumerate(logdir.filesets)}
    pieces: dict[str, list[dict[str, np.ndarray]]] = {name: [] for name in parts}
    offsets = dict.fromkeys(("traces", "executions", "outputs", "traces.kinds",
                             "executions.kinds"), 0)
    for shard in shards:
        fsi = by_prefix[shard.prefix]
        strings = np.array([logdir.strings.intern(s) for s in shard.strings] or [0], np.int64)
        c = shard.columns
        tk = _remap_kinds(c["traces.kinds"], strings, STRING_KINDS["traces"], fsi)
        ek = _remap_kinds(c["executions.kinds"], strings, STRING_KINDS["executions"], fsi)
        pieces["traces.kinds"].append(tk)
        pieces["executions.kinds"].append(ek)
        pieces["traces"].append(dict(c["traces"], kind=c["traces"]["kind"]
                                     + offsets["traces.kinds"]))
        pieces["executions"].append(dict(
            c["executions"], kind=c["executions"]["kind"] + offsets["executions.kinds"],
            first_output=c["executions"]["first_output"] + offsets["outputs"]))
        pieces["outputs"].append(dict(c["outputs"], execution=c["outputs"]["execution"]
                                      + offsets["executions"]))
        for name in ("traces", "outputs"):
            d = c[f"{name}.details"]
            pieces[f"{name}.details"].append(dict(d, row=d["row"] + offsets[name]))
        pieces["executions.details"].append(c["executions.details"])
        for name in offsets:
            offsets[name] += len(next(iter(c[name].values())))
        for g, n, ty in shard.trace_keys:
            ids = (int(strings[g]), int(strings[n]), int(strings[ty]) if ty >= 0 else -1)
            logdir._trace_keys[(logdir.strings[ids[0]], logdir.strings[ids[1]])] = ids
            logdir._unresolved_types = logdir._unresolved_types or ids[2] < 0
        logdir.modes = logdir.modes | frozenset(shard.modes)
        for w in shard.warnings:
            logdir.problems.warn(w)
        logdir.problems.suppressed += shard.suppressed
        logdir.problems.corrupt_records += shard.corrupt
        for suffix, saved in shard.cursors.items():
            cur = logdir.file_cursor(fsi, suffix)
            cur.__dict__.update(saved.__dict__)
    specs = {name: {col: part.column_dtype(col) for col in part.columns}
             for name, part in parts.items()}
    merged = {name: _concat(pieces[name], specs[name]) for name in parts if name != "traces"}
    merged["traces"], order = merge_runs([_fit(p, specs["traces"]) for p in pieces["traces"]],
                                         specs["traces"], threads)
    if order is not None:
        merged["traces.details"] = renumber_details(merged["traces.details"], order)
    for name in ("traces", "executions"):
        kinds = getattr(logdir, name).kinds
        kinds.adopt(merged[f"{name}.kinds"], len(merged[f"{name}.kinds"]["fileset"]))
    _put_in_order(logdir, merged, traces_in_order=True)
    if logdir._unresolved_types:  # an op whose creation another host's graphs recorded
        logdir._resolve_op_types()


def _put_in_order(logdir: DebugLogdir, columns: dict[str, dict[str, np.ndarray]],
                  traces_in_order: bool = False) -> None:
    """Adopt the tensor tables' `columns` in wall-time order, and find the alerts again."""
    if traces_in_order:  # merged by `merge_runs`
        order_executions(columns, columns["executions.kinds"])
    else:
        wall_time_order(columns, columns["executions.kinds"])
    for name, part in tensor_parts(logdir).items():
        if not name.endswith(".kinds"):
            part.adopt(columns[name], len(next(iter(columns[name].values()))))
    alerts = logdir._alerts
    alerts.adopt_sorted({c: np.zeros(0, dt) for c, dt in alerts.spec().items()}, 0)
    alerts.detect(NewRows(logdir.traces, logdir.executions, logdir.outputs,
                          range(len(logdir.traces)), range(len(logdir.outputs))))


def reorder(logdir: DebugLogdir) -> None:
    """An index read file set after file set, put in wall-time order (as `merge` does)."""
    columns = {name: {c: np.array(t.col(c)) for c in t.columns}
               for name, t in tensor_parts(logdir).items()}
    _put_in_order(logdir, columns)


def big_bytes(filesets: list[FileSet]) -> int:
    total = 0
    for fs in filesets:
        for suffix in BIG:
            try:
                total += check_regular(fs.path(suffix)).st_size
            except OSError:
                continue
    return total


def workers(n_filesets: int, big_bytes: int) -> int:
    """Worker processes for `n_filesets` file sets holding `big_bytes`: 0 (in this process)
    below the threshold or on one core, else one per file set up to the cores."""
    try:
        least = int(os.environ.get(PARALLEL_ENV, PARALLEL_MIN_BYTES))
    except ValueError:
        least = PARALLEL_MIN_BYTES
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        cores = min(cores, int(os.environ.get(WORKERS_ENV, cores)))
    except ValueError:
        pass
    if big_bytes < least or cores < 2:
        return 0
    return min(cores, n_filesets)
