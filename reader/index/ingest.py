"""The hot loops: graph traces and executions → numpy columns.

These run once per record, millions of times, so they are written for speed: one reused
protobuf message, locals bound outside the loop, strings interned through one dict lookup,
and the health vectors gathered as raw bytes per mode and decoded with one `np.frombuffer`
per batch instead of one per record.
"""

from __future__ import annotations

import struct
from array import array
from collections.abc import Iterator
from typing import Any, Protocol

import numpy as np
from google.protobuf.message import DecodeError

from reader.errors import CorruptRecordError
from reader.index import health as H
from reader.index.columns import StringTable, Table
from reader.index.schema import EAGER, GRAPH
from reader.index.tensors import decode_tensor, nonfinite_counts
from reader.modes import FULL_TENSOR, NO_TENSOR, VECTOR_LEN
from reader.proto import tfdbg_events_pb2 as pb
from reader.proto import tfdbg_lite_pb2 as plite


class IngestCache:
    """What the hot loops remember between batches; owned by this module, held by the index.

    `trace_keys`: raw (context id, op name) bytes → (graph, op name, op type) string ids, only
    for fully resolved entries. `templates`: byte templates of repeating trace records (see
    `_Template`), keyed by record length.
    """

    def __init__(self) -> None:
        self.trace_keys: dict[tuple[bytes, bytes], tuple[int, int, int]] = {}
        self.templates: dict[int, list[tuple[int, int, dict[bytes, Any]]]] = {}
        self.num_templates = 0

    def forget_unresolved(self) -> None:
        """Drop keys whose op type was not known yet, so the next record looks them up again."""
        self.trace_keys = {k: v for k, v in self.trace_keys.items() if v[2] >= 0}


class IngestTarget(Protocol):
    """What the hot loops need of the index they fill (`DebugLogdir` is one)."""

    strings: StringTable
    executions: Table
    outputs: Table
    traces: Table
    modes: frozenset[int] | set[int]
    ingest_cache: IngestCache

    def warn(self, message: str) -> None: ...
    def skip_record(self, name: str, offset: int, why: str) -> None: ...
    def trace_key(self, graph_id: str, op_name: str) -> tuple[int, int, int]: ...
    def add_alerts(self, kind: int, index: np.ndarray, slot: np.ndarray,
                   wall_time: np.ndarray) -> None: ...


# One packed row per trace: a single struct.pack beats eight array appends in the hot loop.
_TRACE_ROW = struct.Struct("<dqiiiiii")
_TRACE_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("graph_id", "<i4"),
                      ("op_name", "<i4"), ("op_type", "<i4"), ("slot", "<i4"), ("mode", "<i4"),
                      ("device", "<i4")])
_EXEC_ROW = struct.Struct("<dqqiiiii")
_EXEC_DT = np.dtype([("wall_time", "<f8"), ("offset", "<i8"), ("first_output", "<i8"),
                     ("op_type", "<i4"), ("graph_id", "<i4"), ("num_outputs", "<i4"),
                     ("mode", "<i4"), ("n_outputs", "<i4")])


class _HealthBatch:
    """Collects per-row health sources for one batch, then decodes them in bulk.

    Summary vectors (the common case) are concatenated raw into one bytearray; the loops
    append to `vec`, `rows` and `modes` directly. Anything else takes the slow path.
    """

    def __init__(self) -> None:
        self.vec = bytearray()
        self.rows = array("q")
        self.modes = array("i")
        self.slow: list[tuple[int, tuple[int, int, int, int, int, int, int]]] = []

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


def _unpack(buf: bytearray, dt: np.dtype) -> dict[str, np.ndarray]:
    packed = np.frombuffer(buf, dtype=dt)
    return {name: packed[name] for name in dt.names or ()}


def _canonical_header(mode: int) -> tuple[bytes, int, int]:
    """How TensorFlow serializes a mode's float64[L] summary: (prefix, total length, prefix length).

    dtype=DT_DOUBLE, shape=[L], tensor_content=8L bytes, in field order. A tensor_proto whose
    bytes are exactly this prefix plus 8L bytes parses to exactly that, so the hot loop can
    take the content without a protobuf parse; anything else goes through the parser.
    """
    n = VECTOR_LEN[mode]
    prefix = bytes([0x08, 0x02, 0x12, 0x04, 0x12, 0x02, 0x08, n, 0x22, 8 * n])
    return prefix, len(prefix) + 8 * n, len(prefix)


_HEADERS = {mode: _canonical_header(mode) for mode in VECTOR_LEN}


def _full_trace_key(idx: IngestTarget, full: pb.DebugEvent, payload: memoryview, offset: int,
                    name: str) -> tuple[int, int, int] | None:
    """Validate a record with the full message the first time its strings are seen."""
    try:
        full.ParseFromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
    except (DecodeError, ValueError):
        idx.skip_record(name, offset, "could not be parsed")
        return None
    if full.WhichOneof("what") != "graph_execution_trace" or not full.graph_execution_trace.op_name:
        idx.skip_record(name, offset, "is not a graph execution trace")
        return None
    g = full.graph_execution_trace
    return idx.trace_key(g.tfdbg_context_id, g.op_name)


class _Template:
    """The bytes of a trace record that never change between steps of the same tensor.

    A record is `prefix-byte 0x09 | wall_time (8 bytes) | P | content | S` where only
    wall_time and the summary vector's `content` (a bytes field of fixed length) vary. Any
    record of the same length whose P and S are byte-identical to a record that was fully
    parsed has, by the wire format, the very same fields — so it can be indexed by slicing,
    without a parse. Templates are only made from records that were fully validated.
    """

    __slots__ = ("content_len", "mode", "suffix", "tail")

    def __init__(self, tail: bytes, suffix: bytes, content_len: int, mode: int) -> None:
        self.tail = tail
        self.suffix = suffix
        self.content_len = content_len
        self.mode = mode


_TAIL = struct.Struct("<iiiiii")  # graph_id, op_name, op_type, slot, mode, device
_OFFSET = struct.Struct("<q")
MAX_TEMPLATES = 100_000


def _make_template(idx: IngestTarget, payload: memoryview, tpb: bytes, ids: tuple[int, int, int],
                   slot: int, mode: int, dev: int) -> None:
    """Register the record's template if it has the canonical layout (see `_Template`)."""
    cache = idx.ingest_cache
    templates = cache.templates
    if cache.num_templates >= MAX_TEMPLATES or ids[2] < 0 or payload[0] != 0x09:
        return
    whole = payload.tobytes()
    hdr = _HEADERS.get(mode)
    if hdr is not None:
        if len(tpb) != hdr[1] or not tpb.startswith(hdr[0]):
            return
        at = whole.find(tpb)
        if at < 9 or whole.find(tpb, at + 1) != -1:
            return  # must be found exactly once, after the wall time
        cs = at + hdr[2]
        ce = cs + (hdr[1] - hdr[2])
    elif mode == NO_TENSOR:
        cs = ce = len(whole)  # NO_TENSOR: nothing varies but the wall time
    else:
        return
    suffix = whole[ce:]
    shapes = templates.setdefault(len(whole), [])
    shape = next((s for s in shapes if s[0] == len(suffix) and s[1] == ce - cs), None)
    if shape is None:
        shape = (len(suffix), ce - cs, {})
        shapes.append(shape)
    shape[2][whole[9:cs]] = _Template(
        _TAIL.pack(ids[0], ids[1], ids[2], slot, mode, dev), suffix, ce - cs, mode)
    cache.num_templates += 1


def ingest_traces(idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
                  name: str) -> None:
    """Append one batch of `.graph_execution_traces` records to `idx.traces`.

    Most records repeat an earlier record's bytes but for the wall time and the summary
    vector: those are matched against `_Template`s and sliced. The rest are parsed with the
    light message (`tfdbg_lite.proto`) and, when their strings are new, the full one.
    """
    packed = bytearray()
    pack = _TRACE_ROW.pack
    pack_offset = _OFFSET.pack
    keys = idx.ingest_cache.trace_keys
    templates = idx.ingest_cache.templates
    devices: dict[bytes, int] = {}
    intern = idx.strings.intern
    hb = _HealthBatch()
    vec, vec_rows, vec_modes = hb.vec, hb.rows.append, hb.modes.append
    headers = _HEADERS
    lite = plite.DebugEventLite()
    parse = lite.ParseFromString
    full = pb.DebugEvent()
    row = 0
    for offset, payload in records:
        n = len(payload)
        shapes = templates.get(n)
        if shapes is not None and payload[0] == 0x09:
            hit = None
            for sl, cl, by_prefix in shapes:
                ce = n - sl
                tpl = by_prefix.get(payload[9 : ce - cl].tobytes())
                if tpl is not None and payload[ce:] == tpl.suffix:
                    hit = tpl
                    break
            if hit is not None:
                packed += payload[1:9]  # the wall time, already a little-endian double
                packed += pack_offset(offset)
                packed += hit.tail
                if hit.content_len:
                    vec += payload[ce - hit.content_len : ce]
                    vec_rows(row)
                    vec_modes(hit.mode)
                row += 1
                continue
        try:
            parse(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            idx.skip_record(name, offset, "could not be parsed")
            continue
        t = lite.graph_execution_trace
        k = (t.tfdbg_context_id, t.op_name)
        ids = keys.get(k)
        if ids is None:
            ids = _full_trace_key(idx, full, payload, offset, name)
            if ids is None:
                continue
            keys[k] = ids
        dev_name = t.device_name
        dev = devices.get(dev_name)
        if dev is None:
            dev = devices[dev_name] = intern(dev_name.decode("utf-8", "replace"))
        mode = t.tensor_debug_mode
        slot = t.output_slot
        packed += pack(lite.wall_time, offset, ids[0], ids[1], ids[2], slot, mode, dev)
        tpb = t.tensor_proto
        if mode != NO_TENSOR:  # NO_TENSOR carries an empty placeholder
            hdr = headers.get(mode)
            if hdr is not None and len(tpb) == hdr[1] and tpb.startswith(hdr[0]):
                vec += tpb[hdr[2]:]  # inline fast path of _vector_or_proto
                vec_rows(row)
                vec_modes(mode)
            elif tpb:
                _vector_or_proto(hb, row, mode, tpb, name, offset, idx)
        _make_template(idx, payload, tpb, ids, slot, mode, dev)
        row += 1
    if row == 0:
        return
    first = len(idx.traces)
    batch: dict[str, np.ndarray] = _unpack(packed, _TRACE_DT)
    batch["fileset"] = np.full(row, fsi, dtype=np.int16)
    batch.update(hb.columns(row))
    idx.traces.extend(batch)
    # rebind, never mutate: the UI thread may be iterating the old set
    idx.modes = idx.modes | {int(m) for m in np.unique(batch["mode"])}
    bad = np.flatnonzero(batch["bad"] == 1)
    if len(bad):
        idx.add_alerts(GRAPH, bad + first, batch["slot"][bad], batch["wall_time"][bad])


def _vector_or_proto(hb: _HealthBatch, row: int, mode: int, tpb: bytes, name: str,
                     offset: int, idx: IngestTarget) -> None:
    """Route one serialized TensorProto to the fast (canonical summary) or the slow path."""
    hdr = _HEADERS.get(mode)
    if hdr is not None and len(tpb) == hdr[1] and tpb.startswith(hdr[0]):
        hb.vec += tpb[hdr[2]:]
        hb.rows.append(row)
        hb.modes.append(mode)
    elif tpb:
        tp = pb.TensorProto()
        try:
            tp.ParseFromString(tpb)
            if tp.dtype:
                hb.add_proto(row, mode, tp)
        except (DecodeError, ValueError, CorruptRecordError) as exc:
            idx.warn(f"{name}: record at byte {offset}: bad tensor ({exc})")


def ingest_executions(idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
                      name: str) -> None:
    """Append one batch of `.execution` records to `idx.executions` and `idx.outputs`.

    Parses with the light message (no stack, no inputs: read on demand later).
    """
    packed = bytearray()
    pack = _EXEC_ROW.pack
    o_exec, o_slot, o_tid = array("q"), array("i"), array("q")
    interned: dict[bytes, int] = {}
    intern = idx.strings.intern
    hb = _HealthBatch()
    ev = plite.ExecutionEventLite()
    parse = ev.ParseFromString
    exec_base = len(idx.executions)
    out_base = len(idx.outputs)
    row = 0
    orow = 0
    for offset, payload in records:
        try:
            parse(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            idx.skip_record(name, offset, "could not be parsed")
            continue
        e = ev.execution
        op_type = e.op_type
        type_id = interned.get(op_type)
        if type_id is None:
            if not _is_execution(payload):
                idx.skip_record(name, offset, "is not an execution")
                continue
            type_id = interned[op_type] = intern(op_type.decode("utf-8", "replace"))
        mode = e.tensor_debug_mode
        out_ids = e.output_tensor_ids
        protos = e.tensor_protos
        num_outputs = e.num_outputs
        n_ids, n_protos = len(out_ids), len(protos)
        n_out = max(n_ids, n_protos, num_outputs)
        gid = e.graph_id
        if gid:
            gid_id = interned.get(gid)
            if gid_id is None:
                gid_id = interned[gid] = intern(gid.decode("utf-8", "replace"))
        else:
            gid_id = -1
        packed += pack(ev.wall_time, offset, out_base + orow, type_id, gid_id, num_outputs,
                       mode, n_out)
        exec_index = exec_base + row
        for slot in range(n_out):
            o_exec.append(exec_index)
            o_slot.append(slot)
            o_tid.append(out_ids[slot] if slot < n_ids else -1)
            if slot < n_protos and mode != NO_TENSOR:
                _vector_or_proto(hb, orow, mode, protos[slot], name, offset, idx)
            orow += 1
        row += 1
    if row == 0:
        return
    batch = _unpack(packed, _EXEC_DT)
    batch["fileset"] = np.full(row, fsi, dtype=np.int16)
    idx.executions.extend(batch)
    # rebind, never mutate: the UI thread may be iterating the old set
    idx.modes = idx.modes | {int(m) for m in np.unique(batch["mode"])}
    if orow == 0:
        return
    health = hb.columns(orow)
    tids = np.frombuffer(o_tid, dtype=np.int64)
    # the execution's own output ids are authoritative; fall back to the vector's
    health["tensor_id"] = np.where(tids >= 0, tids, health["tensor_id"])
    execs = np.frombuffer(o_exec, dtype=np.int64)
    slots = np.frombuffer(o_slot, dtype=np.int32)
    idx.outputs.extend({"execution": execs, "slot": slots, **health})
    bad = np.flatnonzero(health["bad"] == 1)
    if len(bad):
        ex = execs[bad]
        idx.add_alerts(EAGER, ex, slots[bad], idx.executions.col("wall_time")[ex])


def _is_execution(payload: memoryview) -> bool:
    """Full check, once per new op type: the record really is a well-formed execution."""
    full = pb.DebugEvent()
    try:
        full.ParseFromString(payload)  # type: ignore[arg-type]
    except (DecodeError, ValueError):
        return False
    return full.WhichOneof("what") == "execution"
