"""One batch of index rows being built by the hot loops, and how it becomes columns.

Both the pure-Python loops (`reader.index.ingest`) and the compiled core (`reader._native`)
fill the same batch: packed rows in the layouts below (the C code writes the very same
bytes), the summary vectors as raw float64 bytes with their row numbers and modes, and the
rare tensors that need a real parse. The batch is decoded into numpy columns in bulk.
"""

from __future__ import annotations

import math
import struct
from array import array
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
from google.protobuf.message import DecodeError

from reader import _native
from reader.errors import CorruptRecordError
from reader.index import health as H
from reader.io.tensors import decode_tensor, shape_of, tensor_health
from reader.modes import (
    CONCISE_HEALTH,
    CURT_HEALTH,
    FULL_HEALTH,
    FULL_TENSOR,
    REDUCE_INF_NAN_THREE_SLOTS,
    SHAPE,
    VECTOR_LEN,
    mode_name,
)
from reader.proto import tfdbg_events_pb2 as pb

# One packed row per trace / execution: a single struct.pack beats array appends in the hot
# loop. The kind is the row's repeating fields, interned (`reader.index.kinds`).
TRACE_ROW = struct.Struct("<dqi")
TRACE_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("kind", "<i4")])
EXEC_ROW = struct.Struct("<dqqi")
EXEC_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("first_output", "<i8"),
                    ("kind", "<i4")])


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

# How `bad` follows from each mode's summary, restating `health.fill_from_vectors` for the
# compiled core (which computes it row by row; a test checks both agree on any vector):
# mode → (vector length, rule, columns, element 0 is the tensor id, each element's largest
# sane value). The core takes only sane summaries (`health.sane`) and hands the others back,
# for Python to warn about them.
RULE_NONE, RULE_NONZERO, RULE_SUM_POSITIVE, RULE_ANY_NONZERO_RAW = range(4)
_RULE_OF = {CURT_HEALTH: RULE_NONZERO, CONCISE_HEALTH: RULE_SUM_POSITIVE,
            FULL_HEALTH: RULE_SUM_POSITIVE, SHAPE: RULE_NONE,
            REDUCE_INF_NAN_THREE_SLOTS: RULE_ANY_NONZERO_RAW}
VECTOR_RULES: dict[int, tuple[int, int, tuple[int, ...], bool, tuple[float, ...]]] = {
    mode: (VECTOR_LEN[mode], rule, H.VECTOR_RULE_COLUMNS[mode], mode in H.LIMITS,
           H.LIMITS.get(mode, (float("inf"),) * VECTOR_LEN[mode]))
    for mode, rule in _RULE_OF.items()
}
if _native.ingest is not None:  # the compiled core takes its rules from here
    _native.ingest.configure(VECTOR_RULES)
    _native.ingest.configure_digests(H.COMPARED)


Counts = tuple[int, int, int, int, int, int, int]  # a decoded tensor's dtype, rank, size,
# -inf, +inf, NaN counts and bad


class HealthBatch:
    """Collects per-row health sources for one batch, then decodes them in bulk.

    Summary vectors (the common case) are concatenated raw into one bytearray; the loops
    append to `vec`, `rows` and `modes` directly. Anything else takes the slow path. With
    `digests`, `columns` also gives each row's summary digest (`health.summary_digests`).
    """

    def __init__(self, digests: bool = False) -> None:
        self.vec = bytearray()
        self.rows = array("q")
        self.modes = array("i")
        self.slow: list[tuple[int, Counts]] = []
        self.insane = np.zeros(0, np.int64)
        self.digests: np.ndarray | None = np.zeros(0, np.uint64) if digests else None
        self.summarised = np.zeros(0, bool)  # with digests: rows that had a summary

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
            except (DecodeError, ValueError, ArithmeticError, LookupError,
                    CorruptRecordError) as exc:  # the row stays, its health unknown
                warn(f"{name}: record at byte {offset}: bad tensor: {exc}; its health is "
                     "unknown")

    def add_proto(self, row: int, mode: int, proto: pb.TensorProto) -> None:
        """Slow path: FULL_TENSOR values, or summaries not stored as packed float64.

        Raises CorruptRecordError for a tensor that cannot be what the record says (the row's
        health then stays unknown, and the caller warns)."""
        if mode == FULL_TENSOR:
            counts = tensor_health(proto)  # counted without expanding a repeated value
            if counts is not None:
                dtype, rank, size, n_neg, n_pos, n_nan = counts
                bad = 1 if (n_neg or n_pos or n_nan) else 0
                self.slow.append((row, (dtype, rank, size, n_neg, n_pos, n_nan, bad)))
        elif mode in VECTOR_LEN:
            want = VECTOR_LEN[mode]
            size = math.prod(shape_of(proto))  # checked before anything is decoded
            if size != want:
                raise CorruptRecordError(f"a {mode_name(mode)} summary of {size} values, "
                                         f"where the mode has {want}")
            tv = decode_tensor(proto)
            if tv is None:
                return
            if tv.values.dtype.kind not in "fiub":
                raise CorruptRecordError(f"a {mode_name(mode)} summary of {tv.dtype_name} values")
            self.vec += np.asarray(tv.values, dtype=np.float64).reshape(-1).tobytes()
            self.rows.append(row)
            self.modes.append(mode)

    def drop_from(self, row: int) -> None:
        """Forget what rows >= `row` added (a record that failed halfway is taken back)."""
        rows, modes = self.rows, self.modes
        while rows and rows[-1] >= row:
            rows.pop()
            del self.vec[len(self.vec) - 8 * VECTOR_LEN.get(modes.pop(), 0):]
        while self.slow and self.slow[-1][0] >= row:
            self.slow.pop()

    def columns(self, n: int) -> dict[str, np.ndarray]:
        """Health columns for n rows; `insane` is then the rows whose summary held impossible
        values (shown as unknown, see `health.fill_from_vectors`), for the caller to warn."""
        h = H.empty_health(n)
        insane: list[np.ndarray] = []
        if self.digests is not None:
            self.digests = np.zeros(n, np.uint64)
            self.summarised = np.zeros(n, bool)
            self.summarised[[row for row, _ in self.slow]] = True
        for mode, rows, vecs in _by_mode(self.vec, self.rows, self.modes):
            insane.append(rows[H.fill_from_vectors(h, rows, mode, vecs)])
            if self.digests is not None:
                self.digests[rows] = H.summary_digests(mode, vecs)
                self.summarised[rows] = True
        self.insane = np.sort(np.concatenate(insane)) if insane else np.zeros(0, np.int64)
        _fill_slow(h, self.slow)
        return h


Vectors = tuple[Any, Any, Any]  # summary bytes (float64), their rows (int64), modes (int32)


def _by_mode(vec: Any, rows: Any, modes: Any) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """(mode, rows, (n, VECTOR_LEN[mode]) summaries) per mode of concatenated summaries."""
    if not len(rows):
        return
    flat = np.frombuffer(vec, dtype=np.float64)
    row = np.frombuffer(rows, dtype=np.int64)
    mode_of = np.frombuffer(modes, dtype=np.int32)
    lengths = np.array([VECTOR_LEN.get(int(m), 0) for m in range(16)])[mode_of]
    starts = np.cumsum(lengths) - lengths
    for mode in np.unique(mode_of).tolist():
        sel = np.flatnonzero(mode_of == mode)
        width = VECTOR_LEN[mode]
        if len(sel) == len(mode_of) and len(flat) == width * len(sel):  # one mode: no gather
            yield mode, row, flat.reshape(-1, width)
        else:
            yield mode, row[sel], flat[starts[sel, None] + np.arange(width)]


def _fill_slow(h: dict[str, np.ndarray], slow: list[tuple[int, Counts]]) -> None:
    for row, (dtype, rank, size, n_neg, n_pos, n_nan, bad) in slow:
        h["dtype"][row] = dtype
        h["rank"][row] = rank
        h["size"][row] = size
        h["neg_inf"][row] = n_neg
        h["pos_inf"][row] = n_pos
        h["nan"][row] = n_nan
        h["bad"][row] = bad


def kept_health(n: int, parts: list[Vectors], slow: list[tuple[int, Counts]],
                bad: np.ndarray, tids: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """The health columns of a batch's n rows from the summaries kept while it was indexed
    (`parts`: the compiled loop's and the Python loop's) and its decoded tensors (`slow`),
    with the index's own `bad` (and tensor ids): what `RecordHealth` reads back from the
    records, without reading them (see `Tensors.keep`)."""
    h = H.empty_health(n)
    for vec, rows, modes in parts:
        for mode, at, vecs in _by_mode(vec, rows, modes):
            H.fill_from_vectors(h, at, mode, vecs)
    _fill_slow(h, slow)
    h["bad"] = np.asarray(bad, np.int8)
    if tids is not None:
        h["tensor_id"] = np.asarray(tids, np.int64)
    return h


def unpack(buf: bytearray, dt: np.dtype) -> dict[str, np.ndarray]:
    """Packed rows → one numpy view per field."""
    packed = np.frombuffer(buf, dtype=dt)
    return {name: packed[name] for name in dt.names or ()}


_DIGESTED = np.array(sorted(H.COMPARED), np.int32)


class Tensors:
    """The tensor rows of a batch whose health the loops gathered: `bad` for every row, and
    the full health of the rows decoded from a whole tensor (kept, see `reader.index.detail`).

    The pure-Python loop leaves the health to `HealthBatch`; the compiled core gives `bad`
    (and eager tensor ids) itself, row by row, and Python fills in the rows it indexed
    (`python`, ranges of rows). With `digests` (an index opened for comparison), each row's
    summary digest too, the same from either (see `health.summary_digests`). With `keep`
    (an index whose every row's counts are wanted: an export), the compiled loop also keeps
    every summary it took (`vectors`), for `kept`.
    """

    __slots__ = ("bad", "digest", "hb", "python", "vectors")

    def __init__(self, compiled: bool, digests: bool = False, keep: bool = False) -> None:
        self.hb = HealthBatch(digests)
        self.bad: bytearray | None = bytearray() if compiled else None
        self.digest: bytearray | None = bytearray() if compiled and digests else None
        self.vectors: Vectors | None = (bytearray(), bytearray(), bytearray()) \
            if compiled and keep else None
        self.python: list[tuple[int, int]] = []

    def kept(self, n: int, bad: np.ndarray, tids: np.ndarray | None = None
             ) -> Callable[[], dict[str, np.ndarray]]:
        """After `health`: a function making the n rows' health columns from the summaries
        kept (`kept_health`), to be called on another thread (the batch is not changed
        after this)."""
        hb = self.hb
        parts = [(hb.vec, hb.rows, hb.modes)]
        if self.vectors is not None:
            parts.append(self.vectors)
        slow = list(hb.slow)
        return lambda: kept_health(n, parts, slow, bad, tids)

    def by_python(self, start: int, stop: int) -> None:
        """Rows [start, stop) were indexed by the Python loop."""
        if stop > start and self.bad is not None:
            self.bad += b"\xff" * (stop - start)
            if self.digest is not None:
                self.digest += bytes(8 * (stop - start))
            self.python.append((start, stop))

    def health(self, n: int, tids: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray | None, list[tuple[int, dict[str, int]]]]:
        """(bad, final tensor ids, kept rows) for n rows. `tids` are the ids the records
        give (eager outputs, -1 where none): the vector's id fills in where they are < 0."""
        spans = self.python if self.bad is not None else [(0, n)]
        h = self.hb.columns(n) if spans else None
        if self.bad is None:
            assert h is not None
            bad = h["bad"]
        else:
            bad = np.frombuffer(self.bad, dtype=np.int8).copy()
            for s, e in spans:
                bad[s:e] = h["bad"][s:e] if h is not None else -1
        if tids is not None and h is not None:
            tids = tids.copy()
            for s, e in spans:
                tids[s:e] = np.where(tids[s:e] >= 0, tids[s:e], h["tensor_id"][s:e])
        kept = [(row, {c: int(h[c][row]) for c in H.HEALTH_COLUMNS})
                for row, _ in self.hb.slow] if h is not None else []
        return bad, tids, kept

    def insane(self) -> np.ndarray:
        """After `health`: the rows whose summary held impossible values (sorted)."""
        return self.hb.insane

    def digests(self, n: int, modes: np.ndarray) -> np.ndarray | None:
        """After `health`: the n rows' summary digests (None unless asked for); `modes` are
        the rows' modes: a row of a digested mode without a summary is DIGEST_EMPTY."""
        made = self.hb.digests
        if made is None:
            return None
        if len(made):
            empty = ~self.hb.summarised & np.isin(modes, _DIGESTED)
            made[empty] = H.DIGEST_EMPTY
        if self.bad is None:
            return made
        assert self.digest is not None
        out = np.frombuffer(self.digest, dtype=np.uint64).copy()
        for s, e in self.python:
            out[s:e] = made[s:e]
        return out


class TraceBatch:
    """One batch of trace rows being built: packed rows, their tensors, the row count."""

    __slots__ = ("devices", "hb", "packed", "row", "tensors")

    def __init__(self, compiled: bool = False, digests: bool = False, keep: bool = False
                 ) -> None:
        self.packed = bytearray()
        self.tensors = Tensors(compiled, digests, keep)
        self.hb = self.tensors.hb
        self.row = 0
        self.devices: dict[bytes, int] = {}  # raw device name → string id


class ExecBatch:
    """One batch of executions and their output rows being built."""

    __slots__ = ("exec_base", "hb", "interned", "o_exec", "o_slot", "o_tid", "orow",
                 "out_base", "packed", "row", "tensors")

    def __init__(self, exec_base: int, out_base: int, compiled: bool = False,
                 digests: bool = False, keep: bool = False) -> None:
        self.packed = bytearray()
        self.tensors = Tensors(compiled, digests, keep)
        self.hb = self.tensors.hb
        self.o_exec, self.o_slot, self.o_tid = array("q"), array("i"), array("q")
        self.interned: dict[bytes, int] = {}  # op type / graph id bytes → string id
        self.exec_base, self.out_base = exec_base, out_base
        self.row = self.orow = 0
