"""Full records, read on demand by file offset.

The index keeps only digests (numpy columns). When a pane needs the whole record — an eager
execution's inputs and stack, a trace's debug vector or FULL_TENSOR value — it is re-read from
disk at its offset and parsed (`read_record`). These dataclasses are what callers get back.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from google.protobuf.message import DecodeError

from reader.errors import CorruptRecordError, ReaderError
from reader.io.problems import ProblemLog
from reader.io.regular import NotRegularFile, Readable, fstat, open_regular
from reader.io.tensors import TensorValue, decode_tensor
from reader.io.tfrecord import FOOTER_SIZE, HEADER_SIZE, claimed_length, masked_crc32c
from reader.proto import tfdbg_events_pb2 as pb


@dataclass(frozen=True)
class ExecutionRecord:
    """One eager op or tf.function call, in full."""

    index: int
    wall_time: float
    op_type: str
    graph_id: str | None  # set when this execution is a tf.function call
    num_outputs: int
    input_tensor_ids: tuple[int, ...]
    output_tensor_ids: tuple[int, ...]
    mode: int
    host: str
    stack_frame_ids: tuple[str, ...]
    output_device_ids: tuple[int, ...]
    # Per output slot: the mode's summary vector (health/shape modes) or the full tensor
    # (FULL_TENSOR); None where nothing was recorded (non-float output in a health mode).
    debug_tensors: tuple[TensorValue | None, ...]


@dataclass(frozen=True)
class TraceRecord:
    """One tensor computed inside a graph, in full."""

    index: int
    wall_time: float
    graph_id: str
    op_name: str
    op_type: str
    output_slot: int
    mode: int
    device: str
    # The summary vector (health/shape modes) or the full tensor (FULL_TENSOR); None for
    # NO_TENSOR placeholders.
    value: TensorValue | None

    @property
    def tensor_name(self) -> str:
        return f"{self.op_name}:{self.output_slot}"

    @property
    def vector(self) -> np.ndarray | None:
        """The float64 summary vector, for health and shape modes."""
        if self.value is None:
            return None
        return np.asarray(self.value.values, dtype=np.float64).reshape(-1)


def read_record(path: str, offset: int, max_length: int | None = None) -> pb.DebugEvent:
    """Re-read and parse the record at `offset` of `path`; ReaderError if it is damaged (or
    no longer a regular file: it was indexed from one, but may have been replaced since), or
    longer than `max_length` (checked before it is read or parsed)."""
    return read_records_at(path, (offset,), max_length)[0]


def read_records_at(path: str, offsets: Sequence[int],
                    max_length: int | None = None) -> list[pb.DebugEvent]:
    """`read_record` of each of `offsets` of one file, with one open: a diagnosis that reads
    every execution record of a run (`reader.diagnosis.eager_gaps`) spent most of its time
    opening the file again for each (~0.7 ms a record on a busy machine)."""
    out = []
    try:
        with open_regular(path) as f:
            size = fstat(f).st_size
            for offset in offsets:
                out.append(_parse_at(path, f, size, offset, max_length))
    except NotRegularFile as exc:
        raise ReaderError(str(exc)) from None
    except OSError as exc:
        raise ReaderError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return out


def _parse_at(path: str, f: Readable, size: int, offset: int,
              max_length: int | None) -> pb.DebugEvent:
    f.seek(offset)
    header = f.read(HEADER_SIZE)
    if len(header) < HEADER_SIZE:
        raise CorruptRecordError(f"{path}: no record at byte {offset}")
    length = claimed_length(header)
    if length is None:
        raise CorruptRecordError(f"{path}: corrupt record length at byte {offset}")
    if offset + HEADER_SIZE + length + FOOTER_SIZE > size:  # sizes nothing unchecked
        raise CorruptRecordError(f"{path}: record at byte {offset} claims {length} "
                                 "bytes, more than the file holds")
    if max_length is not None and length > max_length:
        raise ReaderError(f"{path}: record at byte {offset} holds {length:,} bytes, "
                          f"more than the {max_length:,} read for it; not shown")
    payload = f.read(length)
    footer = f.read(FOOTER_SIZE)
    if len(payload) < length or masked_crc32c(payload) != int.from_bytes(footer, "little"):
        raise CorruptRecordError(f"{path}: record at byte {offset} is damaged")
    ev = pb.DebugEvent()
    try:
        ev.ParseFromString(payload)
    except (DecodeError, ValueError):
        raise CorruptRecordError(f"{path}: record at byte {offset} cannot be parsed") from None
    return ev


def parse_event(payload: memoryview | bytes, name: str, offset: int, expect: str,
                problems: ProblemLog) -> pb.DebugEvent | None:
    """Parse one scanned payload; a corrupt or unexpected record is counted and skipped."""
    ev = pb.DebugEvent()
    try:
        ev.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
    except (DecodeError, ValueError):
        problems.skip_record(name, offset, "could not be parsed")
        return None
    if ev.WhichOneof("what") != expect:
        problems.skip_record(name, offset, f"is not a {expect} record")
        return None
    return ev


def execution_record(index: int, ev: pb.DebugEvent) -> ExecutionRecord:
    """The `ExecutionRecord` of a re-read `.execution` event (debug tensors decoded)."""
    e = ev.execution
    tensors = []
    for tp in e.tensor_protos:
        try:
            tensors.append(decode_tensor(tp))
        except CorruptRecordError:
            tensors.append(None)
    return ExecutionRecord(
        index=index, wall_time=ev.wall_time, op_type=e.op_type, graph_id=e.graph_id or None,
        num_outputs=e.num_outputs, input_tensor_ids=tuple(e.input_tensor_ids),
        output_tensor_ids=tuple(e.output_tensor_ids), mode=e.tensor_debug_mode,
        host=e.code_location.host_name,
        stack_frame_ids=tuple(e.code_location.stack_frame_ids),
        output_device_ids=tuple(e.output_tensor_device_ids), debug_tensors=tuple(tensors))


def trace_record(index: int, ev: pb.DebugEvent, op_type: str) -> TraceRecord:
    """The `TraceRecord` of a re-read `.graph_execution_traces` event (value decoded)."""
    g = ev.graph_execution_trace
    value = decode_tensor(g.tensor_proto) if g.HasField("tensor_proto") else None
    return TraceRecord(index, ev.wall_time, g.tfdbg_context_id, g.op_name, op_type,
                       g.output_slot, g.tensor_debug_mode, g.device_name, value)
