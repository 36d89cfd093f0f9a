"""The hot loops: graph traces and executions → numpy columns.

These run once per record, millions of times, so they are written for speed: one reused
protobuf message, locals bound outside the loop, strings interned through one dict lookup,
and the health vectors gathered as raw bytes per mode and decoded with one `np.frombuffer`
per batch instead of one per record.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from functools import partial
from types import ModuleType
from typing import Any, Protocol

import numpy as np
from google.protobuf.message import DecodeError

from reader import _native
from reader._native.drivers import native_traces, trace_key
from reader.errors import ReaderError
from reader.index.batches import (
    HEADERS,
    TRACE_DT,
    TRACE_ROW,
    TraceBatch,
    unpack,
)
from reader.index.columns import StringTable
from reader.index.schema import RowTable
from reader.io.tfrecord import RecordScan
from reader.modes import NO_TENSOR
from reader.proto import tfdbg_events_pb2 as pb
from reader.proto import tfdbg_lite_pb2 as plite

# The compiled core, or None: pure Python (no compiler at install, or TFDBG_TUI_PURE_PYTHON=1).
NATIVE: ModuleType | None = _native.ingest


class IngestCache:
    """What the hot loops remember between batches; owned by this module, held by the index.

    `trace_keys`: raw (context id, op name) bytes → (graph, op name, op type) string ids, only
    for fully resolved entries. `templates`: byte templates of repeating trace records (see
    `_Template`), keyed by file set and record length.
    """

    def __init__(self) -> None:
        self.trace_keys: dict[tuple[bytes, bytes], tuple[int, int, int]] = {}
        self.templates: dict[int, dict[int, list[tuple[int, int, dict[bytes, Any]]]]] = {}
        self.num_templates = 0
        # the compiled core's tables: raw trace keys → trace kind; execution kinds
        self.native_keys = NATIVE.KeyTable() if NATIVE is not None else None
        self.native_exec_kinds = NATIVE.KeyTable() if NATIVE is not None else None
        self.exec_kinds_synced = 0
        self.native_declined = 0  # records the compiled core handed back to Python

    def forget_unresolved(self) -> None:
        """Drop keys whose op type was not known yet, so the next record looks them up again."""
        self.trace_keys = {k: v for k, v in self.trace_keys.items() if v[2] >= 0}


# Told each batch of tensor rows as it is indexed, when an index has one (`DebugLogdir.
# health_sink`): the table ("traces" or "outputs"), the batch's first row, where its records
# are (traces: file set and offset of each row; outputs: their execution's file set and offset,
# and the output slot), and a function making the batch's health columns from the summaries
# kept while indexing it (to call on another thread: `Tensors.kept`).
HealthSink = Callable[[str, int, tuple[np.ndarray, ...], Callable[[], dict[str, np.ndarray]]],
                      None]


class IngestTarget(Protocol):
    """What the hot loops need of the index they fill (`DebugLogdir` is one)."""

    modes: frozenset[int] | set[int]
    health_sink: HealthSink | None

    @property
    def strings(self) -> StringTable: ...
    @property
    def executions(self) -> RowTable: ...
    @property
    def outputs(self) -> RowTable: ...
    @property
    def traces(self) -> RowTable: ...
    @property
    def ingest_cache(self) -> IngestCache: ...

    def warn(self, message: str) -> None: ...
    def skip_record(self, name: str, offset: int, why: str) -> None: ...
    def trace_key(self, graph_id: str, op_name: str) -> tuple[int, int, int]: ...


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


_TAIL = struct.Struct("<i")  # the kind
_OFFSET = struct.Struct("<q")
MAX_TEMPLATES = 100_000
# Outputs an execution may claim beyond the output ids and tensors it carries (the compiled
# core's MAX_OUTPUTS is the same: it hands anything larger back to Python). Past it, a
# claim is not believed: only the outputs the record carries get rows.
MAX_CLAIMED_OUTPUTS = 4096
# What decoding one damaged record can raise besides the parse errors the loops expect: the
# record is skipped with a warning naming its file and offset, and the rest still loads.
RECORD_ERRORS = (ValueError, LookupError, ArithmeticError, struct.error, ReaderError)
# Records named one by one for impossible health summaries, per batch (then one count).
MAX_NAMED = 20


def why_failed(exc: BaseException) -> str:
    return f"could not be indexed ({type(exc).__name__}: {str(exc)[:200]})"


def warn_insane(idx: IngestTarget, name: str, offsets: np.ndarray) -> None:
    """One line per record whose summary held impossible values (the first few per batch)."""
    if not len(offsets):
        return
    offsets = np.unique(offsets)
    for off in offsets[:MAX_NAMED].tolist():
        idx.warn(f"{name}: record at byte {off}: the health summary holds impossible values "
                 "(NaN, ∞, negative or past any real count), shown as unknown")
    if len(offsets) > MAX_NAMED:
        idx.warn(f"{name}: {len(offsets) - MAX_NAMED} more records up to byte "
                 f"{int(offsets[-1])} hold impossible health summaries")


def _make_template(idx: IngestTarget, fsi: int, payload: memoryview, tpb: bytes, op_type: int,
                   mode: int, kind: int) -> None:
    """Register the record's template if it has the canonical layout (see `_Template`)."""
    cache = idx.ingest_cache
    templates = cache.templates.setdefault(fsi, {})
    if cache.num_templates >= MAX_TEMPLATES or op_type < 0 or payload[0] != 0x09:
        return
    whole = payload.tobytes()
    hdr = HEADERS.get(mode)
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
    shape[2][whole[9:cs]] = _Template(_TAIL.pack(kind), suffix, ce - cs, mode)
    cache.num_templates += 1


def ingest_traces(idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
                  name: str) -> None:
    """Append one batch of `.graph_execution_traces` records to `idx.traces`.

    With the compiled core (`reader._native`), the whole buffer goes to C, which hands back
    every record it cannot index exactly (see `reader._native.drivers`); else `_trace_loop`
    does it all.
    """
    compiled = NATIVE is not None and isinstance(records, RecordScan)
    digests = "digest" in idx.traces.columns
    sink = idx.health_sink
    b = TraceBatch(compiled, digests, keep=sink is not None)
    if compiled:
        assert NATIVE is not None and isinstance(records, RecordScan)
        cache = idx.ingest_cache
        cache.native_declined += native_traces(
            NATIVE, records, b, fsi, cache.native_keys,
            partial(_trace_loop, idx, b, fsi, name=records.name))
    else:
        _trace_loop(idx, b, fsi, records, name)
    if b.row == 0:
        return
    first = len(idx.traces)
    batch: dict[str, np.ndarray] = unpack(b.packed, TRACE_DT)
    batch["bad"], _, kept = b.tensors.health(b.row)
    kinds = idx.traces.kinds
    assert kinds is not None
    made = b.tensors.digests(b.row, kinds.col("mode")[batch["kind"]]) if digests else None
    if made is not None:
        batch["digest"] = made
    warn_insane(idx, name, batch["offset"][b.tensors.insane()])
    add_rows(idx, idx.traces, batch, first, kept)
    if sink is not None:
        where = (np.full(b.row, fsi, np.int32), batch["offset"])
        sink("traces", first, where, b.tensors.kept(b.row, batch["bad"]))


def add_rows(idx: IngestTarget, table: RowTable, batch: dict[str, np.ndarray], first: int,
              kept: list[tuple[int, dict[str, int]]]) -> None:
    """Append a batch's rows (and the health kept for some) to a tensor table."""
    table.extend(batch)
    if kept:
        table.details.extend({c: [first + r if c == "row" else h[c] for r, h in kept]
                              for c in table.details.columns})
    assert table.kinds is not None
    # rebind, never mutate: the UI thread may be iterating the old set. Only this batch's
    # kinds: all of them per batch is quadratic when many small files each make kinds.
    used = table.kinds.col("mode")[np.unique(batch["kind"])]
    idx.modes = idx.modes | set(used.tolist())


def _trace_loop(idx: IngestTarget, b: TraceBatch, fsi: int,
                records: Iterator[tuple[int, memoryview]], name: str) -> None:
    """The pure-Python trace loop.

    Most records repeat an earlier record's bytes but for the wall time and the summary
    vector: those are matched against `_Template`s and sliced. The rest are parsed with the
    light message (`tfdbg_lite.proto`) and, when their strings are new, the full one.
    """
    packed = b.packed
    pack = TRACE_ROW.pack
    pack_offset = _OFFSET.pack
    cache = idx.ingest_cache
    keys = cache.trace_keys
    templates = cache.templates.setdefault(fsi, {})
    native_keys = cache.native_keys if b.tensors.bad is not None else None
    kinds = idx.traces.kinds
    assert kinds is not None
    kind_of = kinds.intern
    start = b.row
    devices = b.devices
    intern = idx.strings.intern
    hb = b.hb
    vec, vec_rows, vec_modes = hb.vec, hb.rows.append, hb.modes.append
    headers = HEADERS
    lite = plite.DebugEventLite()
    parse = lite.ParseFromString
    full = pb.DebugEvent()
    row = b.row
    for offset, payload in records:
        try:
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
            kind = kind_of((ids[0], ids[1], ids[2], slot, mode, dev, fsi))
            packed += pack(lite.wall_time, offset, kind)
            tpb = t.tensor_proto
            if mode != NO_TENSOR:  # NO_TENSOR carries an empty placeholder
                hdr = headers.get(mode)
                if hdr is not None and len(tpb) == hdr[1] and tpb.startswith(hdr[0]):
                    vec += tpb[hdr[2]:]  # inline fast path of add_serialized
                    vec_rows(row)
                    vec_modes(mode)
                elif tpb:
                    hb.add_serialized(row, mode, tpb, name, offset, idx.warn)
            if native_keys is not None:
                if ids[2] >= 0:  # only resolved keys: the others are looked up again later
                    native_keys.add(trace_key(fsi, slot, mode, k[0], k[1], dev_name), kind, 0, 0, 0)
            else:
                _make_template(idx, fsi, payload, tpb, ids[2], mode, kind)
            row += 1
        except RECORD_ERRORS as exc:  # the record is taken back whole
            del packed[row * TRACE_ROW.size:]
            hb.drop_from(row)
            idx.skip_record(name, offset, why_failed(exc))
    b.row = row
    b.tensors.by_python(start, row)
