"""Feeding whole buffers to the compiled core, and what it declines back to Python.

C takes a record only when it is intact, in the one canonical protobuf layout, and its strings
were seen (and validated) by the Python loop before - so both give the same row. Each record
C declines (new strings, damage, anything unusual) is scanned by the Python scanner on that
record's bytes alone and indexed by the Python loop (`fallback`), which keeps every warning
and every damaged-input behaviour in one place.
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from itertools import islice
from types import ModuleType
from typing import Any

from reader.index.batches import ExecBatch, TraceBatch
from reader.io.tfrecord import RecordScan, scan_records

Fallback = Callable[[Iterator[tuple[int, memoryview]]], None]
_LEN = struct.Struct("<Q")


def trace_key(context_id: bytes, op_name: bytes, device: bytes) -> bytes:
    """The compiled core's key of a trace: its three strings, each after its length."""
    return b"".join((_LEN.pack(len(context_id)), context_id, _LEN.pack(len(op_name)), op_name,
                     _LEN.pack(len(device)), device))


def _declined(scan: RecordScan, pos: int, end: int) -> RecordScan:
    return scan_records(memoryview(scan.buf)[pos:end], scan.base_offset + pos, scan.state,
                        scan.name)


def native_traces(native: ModuleType, scan: RecordScan, b: TraceBatch, keys: Any,
                  fallback: Fallback) -> int:
    """Index a buffer of trace records; `keys` is the C table of known trace keys.
    Returns how many records C handed back."""
    buf, base, state = scan.buf, scan.base_offset, scan.state
    hb = b.hb
    vrows, vmodes = bytearray(), bytearray()
    pos = declined = 0
    while True:
        pos, status, end, b.row = native.scan_traces(buf, pos, base, keys, b.row, b.packed,
                                                     hb.vec, vrows, vmodes)
        if vrows:
            hb.rows.frombytes(vrows)
            hb.modes.frombytes(vmodes)
            del vrows[:], vmodes[:]
        if status == native.END:
            break
        fallback(_declined(scan, pos, end))
        declined += 1
        if state.stopped:
            break
        pos = end
    state.resume_offset = base + pos
    return declined


def native_executions(native: ModuleType, scan: RecordScan, b: ExecBatch,
                      fallback: Fallback) -> int:
    """As `native_traces`, for executions. C learns the op types and graph ids the Python
    loop interned in this batch (it checks the first record of each op type in full)."""
    buf, base, state = scan.buf, scan.base_offset, scan.state
    names = native.KeyTable()
    synced = 0
    hb = b.hb
    vrows, vmodes = bytearray(), bytearray()
    o_exec, o_slot, o_tid = bytearray(), bytearray(), bytearray()
    pos = declined = 0
    while True:
        pos, status, end, b.row, b.orow = native.scan_executions(
            buf, pos, base, names, b.row, b.orow, b.exec_base, b.out_base, b.packed, hb.vec,
            vrows, vmodes, o_exec, o_slot, o_tid)
        for dst, src in ((hb.rows, vrows), (hb.modes, vmodes), (b.o_exec, o_exec),
                         (b.o_slot, o_slot), (b.o_tid, o_tid)):
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
