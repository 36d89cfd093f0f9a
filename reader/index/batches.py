"""One batch of index rows being built by the hot loops, and how it becomes columns.

Both the pure-Python loops (`reader.index.ingest`) and the compiled core (`reader._native`)
fill the same batch: packed rows in the layouts below (the C code writes the very same
bytes), the summary vectors as raw float64 bytes with their row numbers and modes, and the
rare tensors that need a real parse. The batch is decoded into numpy columns in bulk.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Callable

import numpy as np
from google.protobuf.message import DecodeError

from reader.errors import CorruptRecordError
from reader.index import health as H
from reader.index.tensors import decode_tensor, nonfinite_counts
from reader.modes import FULL_TENSOR, VECTOR_LEN
from reader.proto import tfdbg_events_pb2 as pb

# One packed row per trace: a single struct.pack beats eight array appends in the hot loop.
TRACE_ROW = struct.Struct("<dqiiiiii")
TRACE_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("graph_id", "<i4"),
                     ("op_name", "<i4"), ("op_type", "<i4"), ("slot", "<i4"), ("mode", "<i4"),
                     ("device", "<i4")])
EXEC_ROW = struct.Struct("<dqqiiiii")
EXEC_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("first_output", "<i8"),
                    ("op_type", "<i4"), ("graph_id", "<i4"), ("num_outputs", "<i4"),
                    ("mode", "<i4"), ("n_outputs", "<i4")])


def _canonical_header(mode: int) -> tuple[bytes, int, int]:
    """How TensorFlow serializes a mode's float64[L] summary: (prefix, total length, prefix length).

    dtype=DT_DOUBLE, shape=[L], tensor_content=8L bytes, in field order. A tensor_proto whose
    bytes are exactly this prefix plus 8L bytes parses to exactly that, so the hot loop can
    take the content without a protobuf parse; anything else goes through the parser.
    """
    n = VECTOR_LEN[mode]
    prefix = bytes([0x08, 0x02, 0x12, 0x04, 0x12, 0x02, 0x08, n, 0x22, 8 * n])
    return prefix, len(prefix) + 8 * n, len(prefix)


HEADERS = {mode: _canonical_header(mode) for mode in VECTOR_LEN}


class HealthBatch:
    """Collects per-row health sources for one batch, then decodes them in bulk.

    Summary vectors (the common case) are concatenated raw into one bytearray; the loops
    append to `vec`, `rows` and `modes` directly. Anything else takes the slow path.
    """

    def __init__(self) -> None:
        self.vec = bytearray()
        self.rows = array("q")
        self.modes = array("i")
        self.slow: list[tuple[int, tuple[int, int, int, int, int, int, int]]] = []

    def add_serialized(self, row: int, mode: int, tpb: bytes, name: str, offset: int,
                       warn: Callable[[str], None]) -> None:
        """One serialized TensorProto: the canonical summary fast path, or a real parse."""
        hdr = HEADERS.get(mode)
        if hdr is not None and len(tpb) == hdr[1] and tpb.startswith(hdr[0]):
            self.vec += tpb[hdr[2]:]
            self.rows.append(row)
            self.modes.append(mode)
        elif tpb:
            tp = pb.TensorProto()
            try:
                tp.ParseFromString(tpb)
                if tp.dtype:
                    self.add_proto(row, mode, tp)
            except (DecodeError, ValueError, CorruptRecordError) as exc:
                warn(f"{name}: record at byte {offset}: bad tensor ({exc})")

    def add_proto(self, row: int, mode: int, proto: pb.TensorProto) -> None:
        """Slow path: FULL_TENSOR values, or summaries not stored as packed float64."""
        tv = decode_tensor(proto)
        if tv is None:
            return
        if mode == FULL_TENSOR:
            size, n_neg, n_pos, n_nan = nonfinite_counts(tv)
            bad = 1 if (n_neg or n_pos or n_nan) else 0
            self.slow.append((row, (tv.dtype, len(tv.shape), size, n_neg, n_pos, n_nan, bad)))
        elif mode in VECTOR_LEN:
            vec = np.asarray(tv.values, dtype=np.float64).reshape(-1)
            if len(vec) == VECTOR_LEN[mode]:
                self.vec += vec.tobytes()
                self.rows.append(row)
                self.modes.append(mode)

    def columns(self, n: int) -> dict[str, np.ndarray]:
        h = H.empty_health(n)
        if self.rows:
            flat = np.frombuffer(self.vec, dtype=np.float64)
            rows = np.frombuffer(self.rows, dtype=np.int64)
            modes = np.frombuffer(self.modes, dtype=np.int32)
            lengths = np.array([VECTOR_LEN.get(int(m), 0) for m in range(16)])[modes]
            starts = np.cumsum(lengths) - lengths
            for mode in np.unique(modes):
                sel = np.flatnonzero(modes == mode)
                width = VECTOR_LEN[int(mode)]
                vecs = flat[starts[sel, None] + np.arange(width)]
                H.fill_from_vectors(h, rows[sel], int(mode), vecs)
        for row, (dtype, rank, size, n_neg, n_pos, n_nan, bad) in self.slow:
            h["dtype"][row] = dtype
            h["rank"][row] = rank
            h["size"][row] = size
            h["neg_inf"][row] = n_neg
            h["pos_inf"][row] = n_pos
            h["nan"][row] = n_nan
            h["bad"][row] = bad
        return h


def unpack(buf: bytearray, dt: np.dtype) -> dict[str, np.ndarray]:
    """Packed rows → one numpy view per field."""
    packed = np.frombuffer(buf, dtype=dt)
    return {name: packed[name] for name in dt.names or ()}


class TraceBatch:
    """One batch of trace rows being built: packed rows, health sources, the row count."""

    __slots__ = ("devices", "hb", "packed", "row")

    def __init__(self) -> None:
        self.packed = bytearray()
        self.hb = HealthBatch()
        self.row = 0
        self.devices: dict[bytes, int] = {}  # raw device name → string id


class ExecBatch:
    """One batch of executions and their output rows being built."""

    __slots__ = ("exec_base", "hb", "interned", "o_exec", "o_slot", "o_tid", "orow",
                 "out_base", "packed", "row")

    def __init__(self, exec_base: int, out_base: int) -> None:
        self.packed = bytearray()
        self.hb = HealthBatch()
        self.o_exec, self.o_slot, self.o_tid = array("q"), array("i"), array("q")
        self.interned: dict[bytes, int] = {}  # op type / graph id bytes → string id
        self.exec_base, self.out_base = exec_base, out_base
        self.row = self.orow = 0
