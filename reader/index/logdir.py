"""`DebugLogdir`: the in-memory, columnar index of one tfdbg2 run, and its typed queries.

Design (after TensorFlow's own reader, minus its per-record objects): files are read by
`reader.io.cursors.FileFollower` — each once, front to back, remembering where it stopped, so
`update()` reads only what was appended since and following a live logdir costs nothing when
nothing changed. This module is the index those bytes go into:
- executions, eager outputs and graph traces become rows of typed numpy tables
  (`reader.index.schema`), with strings interned; full records are re-read on demand by
  (file set, offset);
- graphs, ops, stack frames and source-file offsets are small and kept as objects;
- NaN/∞ alerts are found by the detectors of `reader.index.alerts` after each batch;
- damage is local: a bad record is skipped and counted, a broken length stops that one file,
  and a warning names the file and the byte offset (`reader.io.problems`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

from reader.index.access import RecordAccess
from reader.index.alerts import AlertLog, Alerts, NewRows
from reader.index.autograph import AutographMapper
from reader.index.column_spool import ColumnSpool
from reader.index.columns import StringTable, Table
from reader.index.detail import RecordHealth
from reader.index.exec_gather import SMALL_FILE, ExecGather
from reader.index.graphs import GraphStore, ingest_graphs
from reader.index.hooks import HOOKS, IndexCache
from reader.index.ingest import HealthSink, IngestCache, ingest_traces
from reader.index.ingest_exec import ingest_executions
from reader.index.queries import TensorQueries
from reader.index.recording import buffer_warning, thread_warning
from reader.index.schema import (
    ExecutionTable,
    OutputTable,
    TraceTable,
)
from reader.index.sources import SourceIndex
from reader.index.trace_keys import TraceKeys
from reader.io.cursors import (
    CHUNK,
    PREFETCH_FILES,
    ChunkRead,
    Cursor,
    FileFollower,
    PendingRead,
    Records,
)
from reader.io.discovery import (
    FileSet,
    Run,
    discover,
    group_runs,
    new_filesets,
    refresh_present,
    select_run,
)
from reader.io.problems import ProblemLog
from reader.io.remote import is_remote, local_path, normalize
from reader.io.remote_listing import one_pass
from reader.modes import NAN_REVEALING, mode_name

Progress = Callable[[int, int], None]

@dataclass(frozen=True)
class UpdateStats:
    """What one `update()` added."""

    executions: int
    traces: int
    alerts: int
    bytes_read: int

    @property
    def changed(self) -> bool:
        return bool(self.executions or self.traces or self.bytes_read)


class DebugLogdir(TensorQueries, RecordAccess, TraceKeys):
    """The index of one run in a tfdbg2 logdir. Call `update()` to read (more of) it."""

    def __init__(self, path: str, run: str | None = None, cache: bool = False, *,
                 filesets: list[FileSet] | None = None, digests: bool = False) -> None:
        """`digests`: keep each tensor row's summary digest (8 bytes a row), for an index
        opened to be compared with another run (`diff`, `--compare`): equal rows of two
        runs are then told apart without reading their records back."""
        # a URL (s3://bucket/run) is read through reader.io.remote; a file:// URL is local
        path = local_path(path)
        self.path = normalize(path) if is_remote(path) else os.path.abspath(path)
        # `filesets`: index only these, of run `run` (a shard, `reader.index.shards`)
        self._fixed = filesets is not None
        self.runs: list[Run] = ([Run(run or "", list(filesets))] if filesets is not None
                                else group_runs(discover(self.path)))
        self.run: Run = select_run(self.runs, run, path)
        self._sharded = self._fixed
        self.strings = StringTable()
        self.graphs = GraphStore()
        self.executions = ExecutionTable()
        self.digests = digests
        self.outputs = OutputTable(digests)
        self.traces = TraceTable(digests)
        self.problems = ProblemLog()
        self.sources = SourceIndex()
        self.filesets: list[FileSet] = []
        self.modes: frozenset[int] | set[int] = frozenset()  # rebound, never mutated
        self.ingest_cache = IngestCache()  # the hot loops' own memory (see reader.index.ingest)
        # told every batch of tensor rows indexed in this process, with its health to make
        # from the summaries kept on the way (an export sets it: `reader.index.ingest`)
        self.health_sink: HealthSink | None = None
        self._alerts = AlertLog()
        self._alerts.attach(self.traces, self.executions, self.outputs)
        self._files = FileFollower(self.problems)
        self._gather = ExecGather()  # small `.execution` files read, not added yet
        self._trace_keys: dict[tuple[str, str], tuple[int, int, int]] = {}
        self._unresolved_types = False
        self._lock = threading.RLock()
        self._add_filesets(self.run.filesets)
        self._autograph = AutographMapper(self.source_lines, self.source_files)
        # health not kept in memory is read back from the records (reader.index.detail)
        self.traces.detail = self.outputs.detail = RecordHealth(
            lambda fsi, suffix: self.filesets[fsi].path(suffix), self.executions)
        # the persistent index cache (reader.cache): reopening skips what was read before
        self._cache: IndexCache | None = (HOOKS.cache() if cache and HOOKS.cache is not None
                                          else None)
        # the files an open from shards wrote its columns to (`reader.index.column_spool`)
        self.spool: ColumnSpool | None = None
        # the spool whose mappings the tables read (kept once its files are a cache entry)
        self.mapped: ColumnSpool | None = None

    # ------------------------------------------------------------------ warnings
    @property
    def warnings(self) -> list[str]:
        return self.problems.warnings

    @property
    def corrupt_records(self) -> int:
        return self.problems.corrupt_records

    def warn(self, message: str) -> None:
        """Record a one-line warning once; the list is capped so hostile input can't flood it."""
        self.problems.warn(message)

    def skip_record(self, name: str, offset: int, why: str) -> None:
        """Count a record that is skipped, and say which file and byte offset."""
        self.problems.skip_record(name, offset, why)

    def all_warnings(self) -> list[str]:
        """Warnings, plus the mode warning, plus a count of any that were suppressed."""
        out = list(self.problems.warnings)
        if self.problems.suppressed:
            out.append(f"... and {self.problems.suppressed} more warnings")
        for check in (thread_warning(list(self.graphs.graphs.values()), len(self.executions),
                                     len(self.traces)),
                      buffer_warning(len(self.executions), len(self.traces),
                                     len(self.filesets))):
            if check:
                out.append(check)
        if self.modes and not (self.modes & NAN_REVEALING):
            names = ", ".join(sorted(mode_name(m) for m in self.modes))
            out.append(
                f"this run was recorded in {names} mode, which cannot reveal NaN/∞; record "
                "with tensor_debug_mode='FULL_HEALTH' (or CURT_HEALTH, CONCISE_HEALTH, "
                "FULL_TENSOR) to find them"
            )
        return out

    # ------------------------------------------------------------------ metadata
    @property
    def run_id(self) -> str:
        return self.run.run_id

    @property
    def hosts(self) -> list[str]:
        hosts = {fs.host for fs in list(self.filesets) if fs.host}
        hosts.update(h for h, _ in self.sources.files())
        return sorted(h for h in hosts if h)

    @property
    def tensorflow_version(self) -> str:
        return self.run.tensorflow_version

    @property
    def tensor_debug_modes(self) -> list[str]:
        return [mode_name(m) for m in sorted(self.modes)]

    @property
    def num_source_files(self) -> int:
        return self.sources.num_files

    @property
    def lock(self) -> threading.RLock:
        """Held while the index changes (`update`). Work that reads several tables and needs
        them to agree (the diagnosis: kinds, rows, outputs) holds it too; panes need not,
        they only read rows below a published snapshot's counts."""
        return self._lock

    @property
    def num_stack_frames(self) -> int:
        return self.sources.num_frames

    # ------------------------------------------------------------------ reading
    def update(self, progress: Progress | None = None, save: bool = True) -> UpdateStats:
        """Read whatever was appended to the run's files since the last call.

        Cheap when nothing changed (one `stat` per file). `progress(done, total)` is called
        with byte counts while reading. `save=False` leaves saving the index cache to a
        later `save_cache()` (the export does it while its tables are being written).
        """
        with self._lock, one_pass():  # a remote folder listed once per update
            before = (len(self.executions), len(self.traces), len(self._alerts))
            if self._cache is not None:
                self._cache.before_update(self)
            sharded = HOOKS.sharded_read
            if sharded is not None and self._first_of_several():  # hosts read apart (in
                done = sharded(self, progress)  # parallel), then merged
            else:
                done = self.read_files(progress=progress)
            if self._cache is not None and save:
                self._cache.after_update(self)
            return UpdateStats(len(self.executions) - before[0], len(self.traces) - before[1],
                               len(self._alerts) - before[2], done)

    def save_cache(self) -> None:
        """Save the index cache as `update()` does (once per open, when enough was read)."""
        with self._lock:
            if self._cache is not None:
                self._cache.after_update(self)

    def release_pages(self) -> None:
        """Let go of the pages of memory-mapped columns read so far (an open from shards:
        `reader.index.column_spool`): after a pass over whole columns (the diagnosis'
        tables, the incidents' counts) they would stay in the process's resident set,
        ~100 MB at 12.5M records; the next look maps them again from the page cache.
        Nothing to do for columns in memory."""
        if self.mapped is not None:
            self.mapped.trim()

    def read_files(self, suffixes: tuple[str, ...] | None = None,
                   progress: Progress | None = None) -> int:
        """Read what was appended to the run's files (only those `suffixes`, if given);
        returns the bytes consumed."""
        with self._lock:
            self._refresh_filesets()
            plan = [p for p in self._files.plan(self.filesets)
                    if suffixes is None or p.suffix in suffixes]
            done = self._read(plan, self._files.pending_bytes(plan), progress)
            if self._unresolved_types:
                self._resolve_op_types()
            return done

    def _first_of_several(self) -> bool:
        """The first read of a run with several file sets (not restored from a cache)?"""
        if self._sharded or len(self.filesets) < 2:
            return False
        self._sharded = True
        return not any(self._files.cursor(i, s).offset for i in range(len(self.filesets))
                       for s in ("graph_execution_traces", "execution"))

    def file_cursor(self, fsi: int, suffix: str) -> Cursor:
        """Where reading one file of the run stopped (see `reader.io.cursors`)."""
        return self._files.cursor(fsi, suffix)

    def _add_filesets(self, filesets: list[FileSet]) -> None:
        for fs in filesets:
            self.filesets.append(fs)
            self.sources.add_fileset()
            for problem in fs.problems:
                self.warn(problem)

    def _refresh_filesets(self) -> None:
        """Pick up file sets of our run that appeared since (another host starting late)."""
        mine = [] if self._fixed else new_filesets(
            self.path, {fs.prefix for fs in self.filesets}, self.run_id)
        if mine:
            self._add_filesets(mine)
            self.run.filesets.extend(mine)
        refresh_present(self.filesets)

    def _read(self, plan: list[PendingRead], total: int, progress: Progress | None) -> int:
        """Read every pending file, chunk by chunk; returns the bytes consumed."""
        done = 0
        paths = [self.filesets[p.fileset].path(p.suffix) for p in plan]
        try:
            for i, p in enumerate(plan):  # the next few (not all: a run of 40,000 file sets)
                ahead = slice(i + 1, i + 1 + PREFETCH_FILES)
                self._files.prefetch(list(zip(plan[ahead], paths[ahead], strict=True)))
                done = self._read_one(p, paths[i], done, total, progress)
        finally:
            try:
                self._index_chunk(-1, "", iter(()), "")  # adds what was gathered
            finally:
                self._files.settle()
        return done

    def _read_one(self, p: PendingRead, path: str, done: int, total: int,
                  progress: Progress | None) -> int:
        """Read one pending file; returns the bytes consumed so far in all."""
        name = os.path.basename(path)
        small = p.suffix == "execution" and (
            p.size - self._files.cursor(p.fileset, p.suffix).offset <= SMALL_FILE)

        def consume(records: Records, fsi: int = p.fileset, suffix: str = p.suffix,
                    name: str = name) -> None:
            self._index_chunk(fsi, suffix, records, name, small)

        reserved = False
        for chunk in self._files.read(p.fileset, p.suffix, path, consume):
            reserved = reserved or self._reserve_for(p.suffix, chunk)
            done += chunk.consumed
            if progress is not None:
                progress(done, total)
        return done

    def _index_chunk(self, fsi: int, suffix: str, records: Records, name: str,
                     small: bool = False) -> None:
        """Index one chunk's records, then run the alert detectors on the new rows. A small
        file's executions wait for others' (`reader.index.exec_gather`): till the next chunk
        of another kind of file, enough of them, or the end of the read (suffix "")."""
        if small and not self._gather.add(self, fsi, records, name):
            return
        n_traces, n_outputs = len(self.traces), len(self.outputs)
        self._gather.flush(self)
        if suffix == "graph_execution_traces":
            ingest_traces(self, fsi, records, name)
        elif suffix == "execution" and not small:
            ingest_executions(self, fsi, records, name)
        elif suffix == "graphs":
            if ingest_graphs(self.graphs, fsi, records, name, self.problems):
                self._unresolved_types = self._unresolved_types or bool(self._trace_keys)
        elif suffix == "stack_frames":
            self.sources.ingest_frames(fsi, records, name, self.problems)
        elif suffix == "source_files":
            self.sources.ingest_sources(fsi, records, name, self.problems)
        if len(self.traces) != n_traces or len(self.outputs) != n_outputs:
            self._alerts.detect(NewRows(self.traces, self.executions, self.outputs,
                                        range(n_traces, len(self.traces)),
                                        range(n_outputs, len(self.outputs))))

    def _reserve_for(self, suffix: str, chunk: ChunkRead) -> bool:
        """After the first chunk of a big read, size the columns for the whole file (one
        growth instead of log n, each of which briefly holds the old and new arrays).
        True once done (an estimate is made once per read)."""
        tables: tuple[Table, ...] = {"graph_execution_traces": (self.traces,),
                                     "execution": (self.executions, self.outputs)}.get(suffix, ())
        if not (tables and chunk.consumed and chunk.remaining > 4 * CHUNK):
            return False
        for table in tables:
            per_byte = table.rows_added_last / chunk.consumed
            try:  # the size is a claim (a listing may say 1 TiB of a 552-byte object): if
                # room for it cannot be had, the columns grow as rows come, as without it
                table.reserve(len(table) + int(per_byte * (chunk.remaining - chunk.consumed)
                                               * 1.02) + 1024)
            except (MemoryError, ValueError, OverflowError):
                break
        return True

    # ------------------------------------------------------------------ typed queries
    def alerts(self) -> Alerts:
        """Every alert, earliest wall time first (ties keep file order, graph before eager)."""
        with self._lock:
            return self._alerts.sorted()

    @property
    def num_alerts(self) -> int:
        return len(self._alerts)


def open_logdir(path: str, run: str | None = None, progress: Progress | None = None,
                cache: bool = False, digests: bool = False) -> DebugLogdir:
    """Open a logdir and read everything in it. Raises LogdirError when nothing is readable.
    With `cache`, a logdir indexed before is reopened from the index cache (reader.cache);
    `digests`: see `DebugLogdir`."""
    logdir = DebugLogdir(path, run, cache, digests=digests)
    logdir.update(progress)
    return logdir
