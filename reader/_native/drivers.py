"""Feeding whole buffers to the compiled core, and what it declines back to Python.

C takes a record only when it is intact, in the one canonical protobuf layout, and its strings
and kind were seen (and validated) by the Python loop before - so both give the same row. Each
record C declines (new strings, damage, anything unusual) is scanned by the Python scanner on
that record's bytes alone and indexed by the Python loop (`fallback`), which keeps every
warning and every damaged-input behaviour in one place.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from itertools import islice
from types import ModuleType
from typing import Any

from reader.index.batches import ExecBatch, TraceBatch
from reader.index.kinds import KindTable
from reader.io.tfrecord import RecordScan, scan_records

Fallback = Callable[[Iterator[tuple[int, memoryview]]], None]
_LEN = struct.Struct("<Q")
_TRACE_HEAD = struct.Struct("<iii")
_EXEC_KIND = struct.Struct("<iiiiii")


def trace_key(fsi: int, slot: int, mode: int, context_id: bytes, op_name: bytes,
              device: bytes) -> bytes:
    """The compiled core's key of a trace kind: file set, slot, mode, then its three strings,
    each after its length (`trace_lookup` in _ingest.c builds the same bytes)."""
    return b"".join((_TRACE_HEAD.pack(fsi, slot, mode), _LEN.pack(len(context_id)), context_id,
                     _LEN.pack(len(op_name)), op_name, _LEN.pack(len(device)), device))


def _declined(scan: RecordScan, pos: int, end: int) -> RecordScan:
    return scan_records(memoryview(scan.buf)[pos:end], scan.base_offset + pos, scan.state,
                        scan.name)


def native_traces(native: ModuleType, scan: RecordScan, b: TraceBatch, fsi: int, keys: Any,
                  fallback: Fallback) -> int:
    """Index a buffer of trace records; `keys` is the C table of known trace kinds.
    Returns how many records C handed back."""
    buf, base, state = scan.buf, scan.base_offset, scan.state
    bad, digest = b.tensors.bad, b.tensors.digest
    pos = declined = 0
    while True:
        pos, status, end, b.row = native.scan_traces(buf, pos, base, fsi, keys, b.row,
                                                     b.packed, bad, digest, b.tensors.vectors)
        if status == native.END:
            break
        fallback(_declined(scan, pos, end))
        declined += 1
        if state.stopped:
            break
        pos = end
    state.resume_offset = base + pos
    return declined


def _sync_kinds(kinds: KindTable, cache: Any) -> None:
    """Teach C the execution kinds the Python loop made since last time."""
    n = len(kinds)
    if n > cache.exec_kinds_synced:
        cols = [kinds.col(f)[cache.exec_kinds_synced:].tolist() for f in kinds.fields]
        for i, values in enumerate(zip(*cols, strict=True), start=cache.exec_kinds_synced):
            cache.native_exec_kinds.add(_EXEC_KIND.pack(*values), i, 0, 0, 0)
        cache.exec_kinds_synced = n


def native_executions(native: ModuleType, scan: RecordScan, b: ExecBatch, fsi: int,
                      tables: tuple[KindTable, Any], fallback: Fallback) -> int:
    """As `native_traces`, for executions. C learns the op types and graph ids the Python
    loop interned in this batch (it checks the first record of each op type in full), and
    the execution kinds it made."""
    buf, base, state = scan.buf, scan.base_offset, scan.state
    kinds, cache = tables
    names = native.KeyTable()
    synced = 0
    o_exec, o_slot, o_tid = bytearray(), bytearray(), bytearray()
    pos = declined = 0
    while True:
        _sync_kinds(kinds, cache)
        pos, status, end, b.row, b.orow = native.scan_executions(
            buf, pos, base, fsi, names, cache.native_exec_kinds, b.row, b.orow, b.exec_base,
            b.out_base, b.packed, o_exec, o_slot, o_tid, b.tensors.bad, b.tensors.digest,
            b.tensors.vectors)
        for dst, src in ((b.o_exec, o_exec), (b.o_slot, o_slot), (b.o_tid, o_tid)):
            if src:
                dst.frombytes(src)
                del src[:]
        if status == native.END:
            break
        fallback(_declined(scan, pos, end))
        declined += 1
        if state.stopped:
            break
        if len(b.interned) > synced:
            for key, sid in islice(b.interned.items(), synced, None):
                names.add(key, sid, 0, 0, 0)
            synced = len(b.interned)
        pos = end
    state.resume_offset = base + pos
    return declined
