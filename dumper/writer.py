"""A TensorFlow-free writer of complete tfdbg2 file sets (what `enable_dump_debug_info` writes).

Why: tests and benchmarks need logdirs of any shape and size — every debug mode, nested
graphs, millions of graph traces — without paying TensorFlow's import and instrumentation
cost. Everything written here loads in TensorFlow's `DebugDataReader` (tests check it).

Rare records (metadata, source files, frames, graphs, ops, devices) are built with the
compiled protos of `reader.proto`. The two hot records, executions and graph traces, are
encoded by hand (`dumper.encode`) from cached byte templates, because protobuf object
construction would dominate the cost of synthesizing a million traces. `add_graph_traces`
writes a whole batch of one tensor's traces in a tight loop.
"""

from __future__ import annotations

import os
import socket
import struct
import time
import uuid
from collections.abc import Sequence
from types import TracebackType
from typing import Any, BinaryIO

import numpy as np

from dumper.encode import (
    NO_TENSOR_PROTO,
    bulk_trace_records,
    debug_tensor_proto,
    execution_payload,
    str_field,
    trace_payload,
    trace_template,
)
from dumper.errors import DumperError
from dumper.tensors import VECTOR_MODES, mode_number
from reader.io.tfrecord import masked_crc32c
from reader.modes import NO_TENSOR, VECTOR_LEN
from reader.proto import tfdbg_events_pb2 as pb

SUFFIXES = ("metadata", "source_files", "stack_frames", "graphs", "execution",
            "graph_execution_traces")
FILE_VERSION = "debug.Event:1"
DEFAULT_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"
_BUFFER = 1 << 20
_PACK_Q = struct.Struct("<Q").pack
_PACK_I = struct.Struct("<I").pack

class LogdirWriter:
    """Writes one tfdbg2 file set (six files sharing a prefix) into `logdir`.

    Records are buffered; `flush()` pushes them to disk and `close()` (or leaving the
    `with` block) ends the set. Ids follow TensorFlow's conventions: device ids from 1,
    frame ids are UUID strings, symbolic tensor ids count up from 1 across all graphs.
    """

    def __init__(
        self,
        logdir: str | os.PathLike[str],
        run_id: str | None = None,
        hostname: str = "localhost",
        tensorflow_version: str = "2.21.0",
        file_timestamp: int | None = None,
        overwrite: bool = False,
    ) -> None:
        self.logdir = os.fspath(logdir)
        self.run_id = run_id if run_id is not None else uuid.uuid4().hex[:8]
        self.hostname = hostname or socket.gethostname()
        stamp = int(time.time()) if file_timestamp is None else int(file_timestamp)
        self.prefix = os.path.join(self.logdir, f"tfdbg_events.{stamp}.{self.hostname}")
        try:
            os.makedirs(self.logdir, exist_ok=True)
        except OSError as exc:
            raise DumperError(f"cannot create logdir {self.logdir}: {exc.strerror}") from None
        paths = [f"{self.prefix}.{s}" for s in SUFFIXES]
        if not overwrite and any(os.path.exists(p) for p in paths):
            raise DumperError(f"{self.prefix}.* already exists; pass overwrite=True to replace it")
        self._files: dict[str, BinaryIO] = {}
        try:
            for suffix, path in zip(SUFFIXES, paths, strict=True):
                self._files[suffix] = open(path, "wb", buffering=_BUFFER)
        except OSError as exc:
            self._close_files()
            raise DumperError(f"cannot write into {self.logdir}: {exc.strerror}") from None
        self._exec_f = self._files["execution"]
        self._trace_f = self._files["graph_execution_traces"]
        self._headers: dict[int, bytes] = {}
        self._source_files: dict[str, int] = {}
        self._frames: dict[tuple[int, int, str, int], str] = {}
        self._frame_ids: set[str] = set()
        self._devices: dict[str, int] = {}
        self._graphs: dict[str, str] = {}  # graph id -> graph name
        self._ops: dict[tuple[str, str], tuple[str, int]] = {}  # -> (op type, num outputs)
        self._tensor_counter = 0
        self._code_locations: dict[tuple[str, ...], bytes] = {}
        self._trace_templates: dict[tuple[str, str, int, int, str], tuple[bytes, bytes]] = {}
        self.num_executions = 0
        self.num_graph_traces = 0
        self.closed = False
        wall = float(stamp) if file_timestamp is not None else time.time()
        self._write_event(
            "metadata",
            pb.DebugEvent(
                wall_time=wall,
                debug_metadata=pb.DebugMetadata(
                    tensorflow_version=tensorflow_version,
                    file_version=FILE_VERSION,
                    tfdbg_run_id=self.run_id,
                ),
            ),
        )

    # ----------------------------------------------------------------- framing
    def _header(self, n: int) -> bytes:
        header = self._headers.get(n)
        if header is None:
            raw = _PACK_Q(n)
            header = self._headers[n] = raw + _PACK_I(masked_crc32c(raw))
        return header

    def _frame(self, payload: bytes) -> bytes:
        return self._header(len(payload)) + payload + _PACK_I(masked_crc32c(payload))

    def _write_event(self, suffix: str, event: pb.DebugEvent) -> None:
        self._check_open()
        if not event.wall_time:
            event.wall_time = time.time()
        self._files[suffix].write(self._frame(event.SerializeToString()))

    def _check_open(self) -> None:
        if self.closed:
            raise DumperError(f"the writer of {self.prefix} is closed")

    # --------------------------------------------------------- rare records
    def add_source_file(self, path: str, lines: Sequence[str]) -> int:
        """Record a source file's text; returns its file index (frames point at it)."""
        if path in self._source_files:
            return self._source_files[path]
        self._write_event(
            "source_files",
            pb.DebugEvent(
                source_file=pb.SourceFile(file_path=path, host_name=self.hostname, lines=lines)
            ),
        )
        index = self._source_files[path] = len(self._source_files)
        return index

    def add_stack_frame(self, file_index: int, line: int, func: str, col: int = 0) -> str:
        """Record a stack frame of a recorded source file; returns its id (a UUID string)."""
        if not 0 <= file_index < len(self._source_files):
            raise DumperError(f"file index {file_index} does not name a recorded source file")
        key = (file_index, line, func, col)
        if key in self._frames:
            return self._frames[key]
        frame_id = str(uuid.uuid4())
        self._write_event(
            "stack_frames",
            pb.DebugEvent(
                stack_frame_with_id=pb.StackFrameWithId(
                    id=frame_id,
                    file_line_col=pb.FileLineCol(
                        file_index=file_index, line=line, col=col, func=func
                    ),
                )
            ),
        )
        self._frames[key] = frame_id
        self._frame_ids.add(frame_id)
        return frame_id

    def add_device(self, device_name: str) -> int:
        """Register a device (idempotent); returns its id, counting from 1 as TensorFlow does."""
        if device_name in self._devices:
            return self._devices[device_name]
        device_id = self._devices[device_name] = len(self._devices) + 1
        self._write_event(
            "graphs",
            pb.DebugEvent(
                debugged_device=pb.DebuggedDevice(device_name=device_name, device_id=device_id)
            ),
        )
        return device_id

    def add_graph(self, graph_id: str, graph_name: str, outer_graph_id: str = "") -> None:
        """Record a graph (a tf.function's FuncGraph); `outer_graph_id` nests it in another."""
        if graph_id in self._graphs:
            raise DumperError(f"graph {graph_id!r} was already added")
        if outer_graph_id and outer_graph_id not in self._graphs:
            raise DumperError(f"outer graph {outer_graph_id!r} must be added before {graph_id!r}")
        self._write_event(
            "graphs",
            pb.DebugEvent(
                debugged_graph=pb.DebuggedGraph(
                    graph_id=graph_id, graph_name=graph_name, outer_context_id=outer_graph_id
                )
            ),
        )
        self._graphs[graph_id] = graph_name

    def _code_location(self, stack_frame_ids: Sequence[str]) -> bytes:
        key = tuple(stack_frame_ids)
        cached = self._code_locations.get(key)
        if cached is None:
            unknown = [f for f in key if f not in self._frame_ids]
            if unknown:
                raise DumperError(f"unknown stack frame id {unknown[0]!r}")
            body = str_field(0x0A, self.hostname) + b"".join(str_field(0x12, f) for f in key)
            cached = self._code_locations[key] = body
        return cached

    def add_op(
        self,
        graph_id: str,
        op_type: str,
        op_name: str,
        input_names: Sequence[str],
        num_outputs: int = 1,
        stack_frame_ids: Sequence[str] = (),
        device_name: str = DEFAULT_DEVICE,
        output_tensor_ids: Sequence[int] | None = None,
    ) -> list[int]:
        """Record an op's creation in a graph; returns its outputs' symbolic tensor ids.

        `input_names` are "op:slot" strings. Tensor ids default to a run-wide counter, as
        TensorFlow numbers them; pass `output_tensor_ids` to choose them.
        """
        if graph_id not in self._graphs:
            raise DumperError(f"graph {graph_id!r} must be added before its ops")
        for name in input_names:
            if name.count(":") != 1 or not name.rsplit(":", 1)[1].isdigit():
                raise DumperError(f"input name {name!r} is not of the form 'op:slot'")
        if output_tensor_ids is None:
            first = self._tensor_counter + 1
            self._tensor_counter += num_outputs
            output_tensor_ids = list(range(first, first + num_outputs))
        code = pb.CodeLocation()
        code.ParseFromString(self._code_location(stack_frame_ids))
        self._write_event(
            "graphs",
            pb.DebugEvent(
                graph_op_creation=pb.GraphOpCreation(
                    op_type=op_type,
                    op_name=op_name,
                    graph_name=self._graphs[graph_id],
                    graph_id=graph_id,
                    device_name=device_name,
                    input_names=list(input_names),
                    num_outputs=num_outputs,
                    code_location=code,
                    output_tensor_ids=list(output_tensor_ids),
                )
            ),
        )
        self._ops[(graph_id, op_name)] = (op_type, num_outputs)
        return list(output_tensor_ids)

    # ----------------------------------------------------------- hot records
    def add_execution(
        self,
        op_type: str,
        mode: str | int,
        debug_tensors: Sequence[Any] = (),
        graph_id: str = "",
        input_tensor_ids: Sequence[int] = (),
        output_tensor_ids: Sequence[int] = (),
        stack_frame_ids: Sequence[str] = (),
        num_outputs: int | None = None,
        wall_time: float | None = None,
        output_tensor_device_ids: Sequence[int] = (),
    ) -> int:
        """Record one eager op or tf.function call; returns its index in the timeline.

        `debug_tensors` holds one entry per summarized output: the mode's float64 vector
        (FULL_TENSOR: the tensor itself) or None for an empty placeholder. NO_TENSOR records
        none. `graph_id` ties a tf.function call to its graph.
        """
        self._check_open()
        number = mode_number(mode)
        if graph_id and graph_id not in self._graphs:
            raise DumperError(f"unknown graph {graph_id!r}")
        if num_outputs is None:
            num_outputs = len(output_tensor_ids) or len(debug_tensors)
        wall = time.time() if wall_time is None else wall_time
        payload = execution_payload(wall, op_type, num_outputs, graph_id, input_tensor_ids,
                                    output_tensor_ids, number, debug_tensors,
                                    self._code_location(stack_frame_ids),
                                    output_tensor_device_ids)
        self._exec_f.write(self._frame(payload))
        self.num_executions += 1
        return self.num_executions - 1

    def _trace_template(
        self, graph_id: str, op_name: str, output_slot: int, number: int, device_name: str
    ) -> tuple[bytes, bytes]:
        key = (graph_id, op_name, output_slot, number, device_name)
        template = self._trace_templates.get(key)
        if template is None:
            op = self._ops.get((graph_id, op_name))
            if op is None:
                raise DumperError(f"op {op_name!r} was not added to graph {graph_id!r}")
            if not 0 <= output_slot < max(op[1], 1):
                raise DumperError(f"op {op_name!r} has no output slot {output_slot}")
            template = self._trace_templates[key] = trace_template(
                graph_id, op_name, output_slot, number, device_name)
        return template

    def add_graph_trace(
        self,
        graph_id: str,
        op_name: str,
        output_slot: int,
        mode: str | int,
        debug_tensor: Any,
        device_name: str = DEFAULT_DEVICE,
        wall_time: float | None = None,
    ) -> None:
        """Record one instrumented tensor computed inside a graph.

        `debug_tensor` is the mode's float64 vector (FULL_TENSOR: the tensor). NO_TENSOR
        ignores it and writes TensorFlow's placeholder (an empty float32 vector); None in
        another mode writes an empty TensorProto.
        """
        self._check_open()
        number = mode_number(mode)
        prefix, suffix = self._trace_template(graph_id, op_name, output_slot, number, device_name)
        if number == NO_TENSOR:
            proto = NO_TENSOR_PROTO
        else:
            proto = debug_tensor_proto(number, debug_tensor)
        wall = time.time() if wall_time is None else wall_time
        self._trace_f.write(self._frame(trace_payload(wall, prefix, proto, suffix)))
        self.num_graph_traces += 1

    def add_graph_traces(
        self,
        graph_id: str,
        op_name: str,
        output_slot: int,
        mode: str | int,
        debug_tensors: Any,
        device_name: str = DEFAULT_DEVICE,
        wall_times: Any = None,
    ) -> None:
        """Bulk path: many traces of one tensor, `debug_tensors` an (N, vector length) array.

        Every record has the same length, so the framing header and the message prefix are
        computed once; per record only the payload CRC is left. Health and SHAPE modes only.
        """
        self._check_open()
        number = mode_number(mode)
        if number not in VECTOR_MODES:
            raise DumperError("add_graph_traces takes the vector modes; use add_graph_trace")
        vectors = np.ascontiguousarray(debug_tensors, dtype="<f8")
        if vectors.ndim != 2 or vectors.shape[1] != VECTOR_LEN[number]:
            raise DumperError(
                f"expected an (N, {VECTOR_LEN[number]}) array of debug vectors, "
                f"got shape {vectors.shape}"
            )
        count = vectors.shape[0]
        if wall_times is None:
            now = time.time()
            walls = np.full(count, now, dtype="<f8")
        else:
            walls = np.ascontiguousarray(wall_times, dtype="<f8").reshape(-1)
            if walls.size != count:
                raise DumperError("wall_times must have one entry per debug vector")
        prefix, suffix = self._trace_template(graph_id, op_name, output_slot, number, device_name)
        for chunk in bulk_trace_records(prefix, suffix, vectors, walls, self._header):
            self._trace_f.write(chunk)
        self.num_graph_traces += count

    # -------------------------------------------------------------- lifecycle
    def flush(self) -> None:
        """Push every buffered record to the operating system (readers see it)."""
        for f in self._files.values():
            if not f.closed:
                f.flush()

    def _close_files(self) -> None:
        for f in self._files.values():
            f.close()

    def close(self) -> None:
        """Flush and close the six files; later writes raise DumperError."""
        if not self.closed:
            self.closed = True
            self._close_files()

    def __enter__(self) -> LogdirWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
