"""`DebugLogdir`: the in-memory, columnar index of one tfdbg2 run.

Design (after TensorFlow's own reader, minus its per-record objects):
- every file is read once, front to back, remembering where it stopped; `update()` reads only
  what was appended since, so following a live logdir costs nothing when nothing changed;
- executions, eager outputs and graph traces become rows of numpy columns (see `Table`), with
  strings interned; full records are re-read on demand by (file set, offset);
- graphs, ops, stack frames and source-file offsets are small and kept as objects;
- damage is local: a bad record is skipped and counted, a broken length stops that one file,
  and a warning names the file and the byte offset.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from reader.errors import CorruptRecordError, LogdirError, ReaderError
from reader.index.columns import StringTable, Table
from reader.index.frames import Frame, user_frame_index
from reader.index.graphs import Graph, GraphStore, Op
from reader.index.ingest import IngestCache, ingest_executions, ingest_traces
from reader.index.schema import ALERT_SPEC, EXEC_SPEC, GRAPH, OUTPUT_SPEC, TRACE_SPEC
from reader.index.tensors import decode_tensor
from reader.io.discovery import PREFIX, FileSet, Run, discover, group_runs, select_run
from reader.io.records import ExecutionRecord, TraceRecord
from reader.io.tfrecord import FOOTER_SIZE, HEADER_SIZE, ScanState, masked_crc32c, scan_records
from reader.modes import NAN_REVEALING, mode_name
from reader.proto import tfdbg_events_pb2 as pb

CHUNK = 8 << 20
MAX_WARNINGS = 200
Progress = Callable[[int, int], None]



@dataclass
class _Cursor:
    offset: int = 0
    stopped: bool = False
    failed: bool = False


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


@dataclass(frozen=True)
class Alerts:
    """All NaN/∞ alerts, sorted by wall time (stable), as parallel numpy arrays."""

    kind: np.ndarray  # GRAPH (0) or EAGER (1)
    index: np.ndarray  # trace index or execution index
    slot: np.ndarray
    wall_time: np.ndarray

    def __len__(self) -> int:
        return len(self.kind)


class DebugLogdir:
    """The index of one run in a tfdbg2 logdir. Call `update()` to read (more of) it."""

    def __init__(self, path: str, run: str | None = None) -> None:
        self.path = os.path.abspath(path)
        self.runs: list[Run] = group_runs(discover(self.path))
        self.run: Run = select_run(self.runs, run, path)
        self.strings = StringTable()
        self.graphs = GraphStore()
        self.executions = Table(EXEC_SPEC)
        self.outputs = Table(OUTPUT_SPEC)
        self.traces = Table(TRACE_SPEC)
        self._alerts = Table(ALERT_SPEC)
        self._sorted_alerts: Alerts | None = None
        self.filesets: list[FileSet] = []
        self._cursors: dict[tuple[int, str], _Cursor] = {}
        self._source_keys: list[list[tuple[str, str]]] = []  # per file set, in file order
        self._source_index: dict[tuple[str, str], tuple[int, int]] = {}  # → (file set, offset)
        self._frames: dict[str, tuple[int, int, int, str, int]] = {}
        self._source_cache: OrderedDict[tuple[str, str], list[str] | None] = OrderedDict()
        self.modes: frozenset[int] | set[int] = frozenset()  # rebound, never mutated
        self.warnings: list[str] = []
        self._warned: set[str] = set()
        self._suppressed_warnings = 0
        self.corrupt_records = 0
        self._trace_keys: dict[tuple[str, str], tuple[int, int, int]] = {}
        # the same, keyed by the raw bytes the hot loop sees (only fully resolved entries)
        self.ingest_cache = IngestCache()  # the hot loops' own memory (see reader.index.ingest)
        self._unresolved_types = False
        self._lock = threading.RLock()
        self._add_filesets(self.run.filesets)

    # ------------------------------------------------------------------ warnings
    def warn(self, message: str) -> None:
        """Record a one-line warning once; the list is capped so hostile input can't flood it."""
        if message in self._warned:
            return
        self._warned.add(message)
        if len(self.warnings) < MAX_WARNINGS:
            self.warnings.append(message)
        else:
            self._suppressed_warnings += 1

    def skip_record(self, name: str, offset: int, why: str) -> None:
        """Count a record that is skipped, and say which file and byte offset."""
        self.corrupt_records += 1
        self.warn(f"{name}: record at byte {offset} {why} and was skipped")

    def all_warnings(self) -> list[str]:
        """Warnings, plus the mode warning, plus a count of any that were suppressed."""
        out = list(self.warnings)
        if self._suppressed_warnings:
            out.append(f"... and {self._suppressed_warnings} more warnings")
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
        hosts.update(h for h, _ in list(self._source_index))  # list(): atomic vs. the worker
        return sorted(h for h in hosts if h)

    @property
    def tensorflow_version(self) -> str:
        return self.run.tensorflow_version

    @property
    def tensor_debug_modes(self) -> list[str]:
        return [mode_name(m) for m in sorted(self.modes)]

    @property
    def num_source_files(self) -> int:
        return len(self._source_index)

    @property
    def num_stack_frames(self) -> int:
        return len(self._frames)

    def _add_filesets(self, filesets: list[FileSet]) -> None:
        for fs in filesets:
            self.filesets.append(fs)
            self._source_keys.append([])
            for problem in fs.problems:
                self.warn(problem)

    def _refresh_filesets(self) -> None:
        """Pick up file sets of our run that appeared since (another host starting late)."""
        known = {fs.prefix for fs in self.filesets}
        try:
            names = os.listdir(self.path)
        except OSError:
            return
        stems = {os.path.join(self.path, n.rsplit(".", 1)[0]) for n in names
                 if n.startswith(PREFIX) and n.endswith(".metadata")}
        if stems <= known:
            fresh = []
        else:
            try:
                fresh = [fs for fs in discover(self.path) if fs.prefix not in known]
            except LogdirError:
                return
        mine = [fs for fs in fresh if fs.run_id == self.run_id]
        if mine:
            self._add_filesets(mine)
            self.run.filesets.extend(mine)
        for fs in self.filesets:  # a file that did not exist at first may exist now
            fs.present.update(
                s for s in ("source_files", "stack_frames", "graphs", "execution",
                            "graph_execution_traces") if os.path.exists(fs.path(s))
            )

    # ------------------------------------------------------------------ reading
    def update(self, progress: Progress | None = None) -> UpdateStats:
        """Read whatever was appended to the run's files since the last call.

        Cheap when nothing changed (one `stat` per file). `progress(done, total)` is called
        with byte counts while reading.
        """
        with self._lock:
            self._refresh_filesets()
            plan: list[tuple[int, str, int]] = []
            total = 0
            for fsi, fs in enumerate(self.filesets):
                for suffix in ("source_files", "stack_frames", "graphs",
                               "graph_execution_traces", "execution"):
                    cur = self._cursors.setdefault((fsi, suffix), _Cursor())
                    if cur.stopped or cur.failed:
                        continue
                    try:
                        size = os.stat(fs.path(suffix)).st_size
                    except OSError:
                        continue
                    if size < cur.offset:
                        self.warn(f"{os.path.basename(fs.path(suffix))}: file shrank; "
                                  "it was rewritten and is no longer followed")
                        cur.stopped = True
                        continue
                    if size > cur.offset:
                        plan.append((fsi, suffix, size))
                        total += size - cur.offset
            # structure first (traces need op types), then traces, then executions
            order = {"source_files": 0, "stack_frames": 1, "graphs": 2,
                     "graph_execution_traces": 3, "execution": 4}
            plan.sort(key=lambda p: (order[p[1]], p[0]))
            n_exec, n_trace, n_alert = len(self.executions), len(self.traces), len(self._alerts)
            done = 0
            for fsi, suffix, _size in plan:
                for nbytes in self._read_file(fsi, suffix):
                    done += nbytes
                    if progress is not None:
                        progress(done, total)
            if self._unresolved_types:
                self._resolve_op_types()
            if len(self._alerts) != n_alert:
                self._sorted_alerts = None
            return UpdateStats(len(self.executions) - n_exec, len(self.traces) - n_trace,
                               len(self._alerts) - n_alert, done)

    def _read_file(self, fsi: int, suffix: str) -> Iterator[int]:
        """Scan one file from its cursor, chunk by chunk; yields bytes consumed per chunk."""
        fs = self.filesets[fsi]
        cur = self._cursors[(fsi, suffix)]
        path = fs.path(suffix)
        name = os.path.basename(path)
        try:
            f = open(path, "rb")
        except OSError as exc:
            self.warn(f"{name}: cannot read ({exc.strerror})")
            cur.failed = True
            return
        tables = {"graph_execution_traces": (self.traces,),
                   "execution": (self.executions, self.outputs)}.get(suffix, ())
        with f:
            f.seek(cur.offset)
            remaining = os.fstat(f.fileno()).st_size - cur.offset
            pending = b""
            while True:
                data = f.read(CHUNK)
                if not data:
                    break
                buf = pending + data if pending else data
                base = cur.offset
                state = ScanState(resume_offset=base)
                self._ingest(fsi, suffix, buf, base, state, name)
                for problem in state.problems:
                    self.warn(problem)
                self.corrupt_records += state.bad_records
                consumed = state.resume_offset - base
                cur.offset = state.resume_offset
                pending = buf[consumed:]
                if tables and consumed and remaining > 4 * CHUNK:
                    self._reserve(tables, consumed, remaining)
                    remaining = 0  # estimate once per read
                yield consumed
                if state.stopped:
                    self.corrupt_records += 1
                    cur.stopped = True
                    break

    def _reserve(self, tables: tuple[Table, ...], consumed: int, remaining: int) -> None:
        """After the first chunk of a big read, size the columns for the whole file."""
        for table in tables:
            per_byte = table.rows_added_last / consumed
            table.reserve(len(table) + int(per_byte * (remaining - consumed) * 1.02) + 1024)

    def _ingest(self, fsi: int, suffix: str, buf: bytes, base: int, state: ScanState,
                name: str) -> None:
        records = scan_records(buf, base, state, name)
        if suffix == "graph_execution_traces":
            ingest_traces(self, fsi, records, name)
        elif suffix == "execution":
            ingest_executions(self, fsi, records, name)
        elif suffix == "graphs":
            self._ingest_graphs(fsi, records, name)
        elif suffix == "stack_frames":
            self._ingest_frames(fsi, records, name)
        elif suffix == "source_files":
            self._ingest_sources(fsi, records, name)

    def parse(self, payload: memoryview | bytes, name: str, offset: int,
              expect: str) -> pb.DebugEvent | None:
        """Parse one payload; a corrupt or unexpected record is counted, warned and skipped."""
        ev = pb.DebugEvent()
        try:
            ev.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            self.skip_record(name, offset, "could not be parsed")
            return None
        if ev.WhichOneof("what") != expect:
            self.skip_record(name, offset, f"is not a {expect} record")
            return None
        return ev

    def _ingest_sources(self, fsi: int, records: Iterator[tuple[int, memoryview]],
                        name: str) -> None:
        keys = self._source_keys[fsi]
        for offset, payload in records:
            ev = self.parse(payload, name, offset, "source_file")
            if ev is None:
                continue
            key = (ev.source_file.host_name, ev.source_file.file_path)
            if key not in self._source_index:
                self._source_index[key] = (fsi, offset)
            if key not in keys:  # TensorFlow indexes files by first appearance
                keys.append(key)

    def _ingest_frames(self, fsi: int, records: Iterator[tuple[int, memoryview]],
                       name: str) -> None:
        for offset, payload in records:
            ev = self.parse(payload, name, offset, "stack_frame_with_id")
            if ev is None:
                continue
            sf = ev.stack_frame_with_id
            flc = sf.file_line_col
            self._frames[sf.id] = (fsi, flc.file_index, flc.line, flc.func, flc.col)

    def _ingest_graphs(self, fsi: int, records: Iterator[tuple[int, memoryview]],
                       name: str) -> None:
        store = self.graphs
        for offset, payload in records:
            ev = pb.DebugEvent()
            try:
                ev.ParseFromString(payload)  # type: ignore[arg-type]
            except (DecodeError, ValueError):
                self.skip_record(name, offset, "could not be parsed")
                continue
            what = ev.WhichOneof("what")
            if what == "graph_op_creation":
                oc = ev.graph_op_creation
                store.add_op(Op(oc.graph_id, oc.op_type, oc.op_name, oc.device_name,
                                tuple(oc.input_names), oc.num_outputs,
                                tuple(oc.output_tensor_ids),
                                tuple(oc.code_location.stack_frame_ids),
                                oc.code_location.host_name, fsi))
                self._unresolved_types = self._unresolved_types or bool(self._trace_keys)
            elif what == "debugged_graph":
                dg = ev.debugged_graph
                store.add_graph(dg.graph_id, dg.graph_name, dg.outer_context_id)
            elif what == "debugged_device":
                store.devices[ev.debugged_device.device_id] = ev.debugged_device.device_name

    def trace_key(self, graph_id: str, op_name: str) -> tuple[int, int, int]:
        """(graph id, op name, op type) string ids for a trace; op type -1 if not known yet."""
        op = self.graphs.op(graph_id, op_name)
        ids = (self.strings.intern(graph_id), self.strings.intern(op_name),
               self.strings.intern(op.op_type) if op is not None else -1)
        if op_name:  # an empty name is a foreign record: never cache it, so each is checked
            self._trace_keys[(graph_id, op_name)] = ids
        if op is None:
            self._unresolved_types = True
        return ids

    def _resolve_op_types(self) -> None:
        """Fill in op types of traces whose op creation was read after them (live logdirs)."""
        self._unresolved_types = False
        # raw-key entries made before the op was known are dropped and looked up again
        self.ingest_cache.forget_unresolved()
        stale = [k for k, ids in self._trace_keys.items() if ids[2] < 0]
        if not stale:
            return
        types = self.traces.col("op_type")
        rows = np.flatnonzero(types < 0)
        if len(rows) == 0:
            return
        gids = self.traces.col("graph_id")[rows]
        names = self.traces.col("op_name")[rows]
        for key in stale:
            ids = self.trace_key(*key)
            if ids[2] >= 0:
                hit = rows[(gids == ids[0]) & (names == ids[1])]
                self.traces.set("op_type", hit, ids[2])

    def add_alerts(self, kind: int, index: np.ndarray, slot: np.ndarray,
                   wall_time: np.ndarray) -> None:
        if len(index):
            self._alerts.extend({"kind": np.full(len(index), kind), "index": index,
                                 "slot": slot, "wall_time": wall_time})

    # ------------------------------------------------------------------ queries
    def alerts(self) -> Alerts:
        """Every alert, earliest wall time first (ties keep file order, graph before eager)."""
        with self._lock:
            cached = self._sorted_alerts
            if cached is not None and len(cached) == len(self._alerts):
                return cached
            t = self._alerts
            kind, index, wall = t.col("kind"), t.col("index"), t.col("wall_time")
            order = np.lexsort((index, kind, wall))
            result = Alerts(kind[order], index[order], t.col("slot")[order], wall[order])
            self._sorted_alerts = result
            return result

    @property
    def num_alerts(self) -> int:
        return len(self._alerts)

    def op_type_of_trace(self, i: int) -> str:
        return self.strings[int(self.traces.col("op_type")[i])] or "?"

    def trace_name(self, i: int) -> str:
        t = self.traces
        return f"{self.strings[int(t.col('op_name')[i])]}:{int(t.col('slot')[i])}"

    def graph_of_trace(self, i: int) -> str:
        return self.strings[int(self.traces.col("graph_id")[i])]

    def graph(self, graph_id: str) -> Graph | None:
        return self.graphs.graphs.get(graph_id)

    def op_of_trace(self, i: int) -> Op | None:
        name = self.strings[int(self.traces.col("op_name")[i])]
        return self.graphs.op(self.graph_of_trace(i), name)

    def read_event(self, fsi: int, suffix: str, offset: int) -> pb.DebugEvent:
        """Re-read and parse the record at `offset`; ReaderError if it is damaged."""
        path = self.filesets[fsi].path(suffix)
        try:
            with open(path, "rb") as f:
                f.seek(offset)
                header = f.read(HEADER_SIZE)
                if len(header) < HEADER_SIZE:
                    raise CorruptRecordError(f"{path}: no record at byte {offset}")
                length = int.from_bytes(header[:8], "little")
                if masked_crc32c(header[:8]) != int.from_bytes(header[8:12], "little"):
                    raise CorruptRecordError(f"{path}: corrupt record length at byte {offset}")
                payload = f.read(length)
                footer = f.read(FOOTER_SIZE)
        except OSError as exc:
            raise ReaderError(f"{path}: cannot read ({exc.strerror})") from None
        if len(payload) < length or masked_crc32c(payload) != int.from_bytes(footer, "little"):
            raise CorruptRecordError(f"{path}: record at byte {offset} is damaged")
        ev = pb.DebugEvent()
        try:
            ev.ParseFromString(payload)
        except (DecodeError, ValueError):
            raise CorruptRecordError(f"{path}: record at byte {offset} cannot be parsed") from None
        return ev

    def read_execution(self, i: int) -> ExecutionRecord:
        """The full eager execution `i` (inputs, outputs, stack, debug tensors)."""
        t = self.executions
        ev = self.read_event(int(t.col("fileset")[i]), "execution", int(t.col("offset")[i]))
        e = ev.execution
        tensors = []
        for tp in e.tensor_protos:
            try:
                tensors.append(decode_tensor(tp))
            except CorruptRecordError:
                tensors.append(None)
        return ExecutionRecord(
            index=i, wall_time=ev.wall_time, op_type=e.op_type, graph_id=e.graph_id or None,
            num_outputs=e.num_outputs, input_tensor_ids=tuple(e.input_tensor_ids),
            output_tensor_ids=tuple(e.output_tensor_ids), mode=e.tensor_debug_mode,
            host=e.code_location.host_name,
            stack_frame_ids=tuple(e.code_location.stack_frame_ids),
            output_device_ids=tuple(e.output_tensor_device_ids), debug_tensors=tuple(tensors))

    def read_trace(self, i: int) -> TraceRecord:
        """The full graph trace `i`, with its debug vector or FULL_TENSOR value decoded."""
        t = self.traces
        ev = self.read_event(int(t.col("fileset")[i]), "graph_execution_traces",
                             int(t.col("offset")[i]))
        g = ev.graph_execution_trace
        value = decode_tensor(g.tensor_proto) if g.HasField("tensor_proto") else None
        op = self.graphs.op(g.tfdbg_context_id, g.op_name)
        return TraceRecord(i, ev.wall_time, g.tfdbg_context_id, g.op_name,
                           op.op_type if op else "?", g.output_slot, g.tensor_debug_mode,
                           g.device_name, value)

    # ------------------------------------------------------------------ stacks & sources
    def stack(self, frame_ids: tuple[str, ...] | list[str]) -> list[Frame]:
        """Resolve frame ids (outermost first, as recorded) to Frames."""
        out = []
        for fid in frame_ids:
            rec = self._frames.get(fid)
            if rec is None:
                out.append(Frame("<unknown frame>", 0, "?", resolved=False))
                continue
            fsi, file_index, line, func, col = rec
            keys = self._source_keys[fsi]
            if 0 <= file_index < len(keys):
                host, path = keys[file_index]
                out.append(Frame(path, line, func, host, col))
            else:
                out.append(Frame(f"<file #{file_index}>", line, func, "", col, resolved=False))
        return out

    def op_stack(self, op: Op) -> list[Frame]:
        """Where a graph op was created."""
        return self.stack(op.stack_frame_ids)

    def alert_stack(self, kind: int, index: int) -> list[Frame]:
        """The stack of an alert: the op's creation (graph) or the execution (eager)."""
        if kind == GRAPH:
            op = self.op_of_trace(index)
            return self.op_stack(op) if op else []
        return self.stack(self.read_execution(index).stack_frame_ids)

    @staticmethod
    def user_frame(frames: list[Frame]) -> Frame | None:
        i = user_frame_index(frames)
        return frames[i] if i is not None else None

    def source_lines(self, host: str, path: str) -> list[str] | None:
        """The logdir's copy of a source file (lines without newlines), or None."""
        key = (host, path)
        with self._lock:
            if key in self._source_cache:
                self._source_cache.move_to_end(key)
                return self._source_cache[key]
            loc = self._source_index.get(key)
            if loc is None:
                loc = next((v for (h, p), v in self._source_index.items() if p == path), None)
            lines: list[str] | None = None
            if loc is not None:
                try:
                    ev = self.read_event(loc[0], "source_files", loc[1])
                    lines = [ln.rstrip("\r\n") for ln in ev.source_file.lines]
                except ReaderError as exc:
                    self.warn(str(exc))
            self._source_cache[key] = lines
            if len(self._source_cache) > 16:
                self._source_cache.popitem(last=False)
            return lines

    def source_files(self) -> list[tuple[str, str]]:
        """(host, path) of every captured source file."""
        return list(self._source_index)

    def code_line(self, frame: Frame) -> str | None:
        """The frame's line of code, from the logdir's copy of its file."""
        lines = self.source_lines(frame.host, frame.file)
        if lines and 1 <= frame.line <= len(lines):
            return lines[frame.line - 1]
        return None


def open_logdir(path: str, run: str | None = None,
                progress: Progress | None = None) -> DebugLogdir:
    """Open a logdir and read everything in it. Raises LogdirError when nothing is readable."""
    logdir = DebugLogdir(path, run)
    logdir.update(progress)
    return logdir
