"""Full records, stacks and source lines of a `DebugLogdir`, read on demand by offset.

Apart from the index (`reader.index.logdir`) because these never touch the columns' growth:
they re-read one record, resolve frame ids or hand out a file's captured lines, and are what
the panes and the diagnosis ask per row. `DebugLogdir` mixes them in.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from reader.index.frames import Frame, user_frame_index
from reader.index.schema import GRAPH
from reader.index.sources import MAX_SOURCE_RECORD
from reader.io.records import (
    ExecutionRecord,
    TraceRecord,
    execution_record,
    read_record,
    trace_record,
)
from reader.proto import tfdbg_events_pb2 as pb

if TYPE_CHECKING:
    from reader.index.autograph import AutographMapper
    from reader.index.graphs import GraphStore, Op
    from reader.index.schema import ExecutionTable, TraceTable
    from reader.index.sources import SourceIndex
    from reader.io.discovery import FileSet
    from reader.io.problems import ProblemLog


class RecordAccess:
    """Reads behind the index: what `DebugLogdir` provides is declared here for the checker."""

    filesets: list[FileSet]
    executions: ExecutionTable
    traces: TraceTable
    graphs: GraphStore
    sources: SourceIndex
    problems: ProblemLog
    _autograph: AutographMapper
    _lock: threading.RLock

    def op_of_trace(self, i: int) -> Op | None:
        raise NotImplementedError

    # ------------------------------------------------------------------ full records
    def read_event(self, fsi: int, suffix: str, offset: int,
                   max_length: int | None = None) -> pb.DebugEvent:
        """Re-read and parse the record at `offset`; ReaderError if it is damaged (or
        longer than `max_length`)."""
        return read_record(self.filesets[fsi].path(suffix), offset, max_length)

    def read_execution(self, i: int) -> ExecutionRecord:
        """The full eager execution `i` (inputs, outputs, stack, debug tensors)."""
        t = self.executions
        ev = self.read_event(int(t.lazy("fileset")[i]), "execution", int(t.col("offset")[i]))
        return execution_record(i, ev)

    def read_trace(self, i: int) -> TraceRecord:
        """The full graph trace `i`, with its debug vector or FULL_TENSOR value decoded."""
        t = self.traces
        ev = self.read_event(int(t.lazy("fileset")[i]), "graph_execution_traces",
                             int(t.col("offset")[i]))
        g = ev.graph_execution_trace
        op = self.graphs.op(g.tfdbg_context_id, g.op_name)
        return trace_record(i, ev, op.op_type if op else "?")

    # ------------------------------------------------------------------ stacks & sources
    def stack(self, frame_ids: tuple[str, ...] | list[str]) -> list[Frame]:
        """Resolve frame ids (outermost first, as recorded) to Frames; frames in AutoGraph's
        generated code are mapped back to the user's line (`reader.index.autograph`)."""
        return self._autograph.map(self.sources.stack(frame_ids))

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
        with self._lock:
            return self.sources.lines(
                host, path,
                lambda fsi, off: self.read_event(fsi, "source_files", off, MAX_SOURCE_RECORD),
                self.problems)

    def source_files(self) -> list[tuple[str, str]]:
        """(host, path) of every captured source file."""
        return self.sources.files()

    def code_line(self, frame: Frame) -> str | None:
        """The frame's line of code, from the logdir's copy of its file."""
        lines = self.source_lines(frame.host, frame.file)
        if lines and 1 <= frame.line <= len(lines):
            return lines[frame.line - 1]
        return None
