"""The execution loop: `.execution` records → execution rows and their output rows.

Apart from the graph-trace loop (`reader.index.ingest`) for size; the same rules hold: one
reused light message, strings interned through one dict lookup, health vectors gathered per
batch, every claimed count checked against what the record carries, and a record that raises
taken back whole with a one-line warning naming file and offset.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

import numpy as np
from google.protobuf.message import DecodeError

import reader.index.ingest as _ingest
from reader._native.drivers import native_executions
from reader.index.batches import EXEC_DT, EXEC_ROW, ExecBatch, unpack
from reader.index.ingest import (
    MAX_CLAIMED_OUTPUTS,
    RECORD_ERRORS,
    IngestTarget,
    add_rows,
    warn_insane,
    why_failed,
)
from reader.io.tfrecord import RecordScan
from reader.modes import NO_TENSOR
from reader.proto import tfdbg_events_pb2 as pb
from reader.proto import tfdbg_lite_pb2 as plite


def ingest_executions(idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
                      name: str) -> None:
    """Append one batch of `.execution` records to `idx.executions` and `idx.outputs`.

    Parses with the light message (no stack, no inputs: read on demand later); in C when the
    compiled core is there (see `reader._native.drivers` for why that is exact).
    """
    b = scan_executions(idx, fsi, records, name, len(idx.executions), len(idx.outputs))
    add_executions(idx, b, [(0, fsi, name)])


def scan_executions(idx: IngestTarget, fsi: int, records: Iterator[tuple[int, memoryview]],
                    name: str, exec_base: int, out_base: int) -> ExecBatch:
    """A batch of `.execution` records, rows numbered from `exec_base` and `out_base`,
    not added yet (`add_executions`; `reader.index.exec_gather` adds several files' at once)."""
    native = _ingest.NATIVE  # looked up per call: tests switch the compiled core off
    compiled = native is not None and isinstance(records, RecordScan)
    digests = "digest" in idx.outputs.columns
    b = ExecBatch(exec_base, out_base, compiled, digests, idx.health_sink is not None)
    if compiled:
        assert native is not None and isinstance(records, RecordScan)
        cache = idx.ingest_cache
        kinds = idx.executions.kinds
        assert kinds is not None
        cache.native_declined += native_executions(
            native, records, b, fsi, (kinds, cache),
            partial(_exec_loop, idx, b, fsi, name=records.name))
    else:
        _exec_loop(idx, b, fsi, records, name)
    return b


Segments = list[tuple[int, int, str]]  # (first execution row of the batch, file set, name)


def add_executions(idx: IngestTarget, b: ExecBatch, segments: Segments) -> None:
    """Add a batch's rows to the tables: `segments` say which file set and file each run of
    its executions came from (one, or one per file gathered)."""
    if b.row == 0:
        return
    assert b.exec_base == len(idx.executions) and b.out_base == len(idx.outputs)
    rows = unpack(b.packed, EXEC_DT)
    add_rows(idx, idx.executions, rows, len(idx.executions), [])
    if b.orow == 0:
        return
    sink = idx.health_sink
    # the execution's own output ids are authoritative; the vector's fills in
    bad, tids, kept = b.tensors.health(b.orow, np.frombuffer(b.o_tid, dtype=np.int64))
    ex = np.frombuffer(b.o_exec, dtype=np.int64) - b.exec_base  # each output's execution
    execs = ex[b.tensors.insane()]
    starts = np.array([s for s, _, _ in segments], np.int64)
    of = np.searchsorted(starts, execs, side="right") - 1  # the segment of each (sorted)
    for k in np.unique(of).tolist():
        warn_insane(idx, segments[k][2], rows["offset"][execs[of == k]])
    first = len(idx.outputs)
    ekinds = idx.executions.kinds
    assert ekinds is not None
    made = b.tensors.digests(b.orow, ekinds.col("mode")[rows["kind"][ex]]) \
        if "digest" in idx.outputs.columns else None
    idx.outputs.extend({"execution": np.frombuffer(b.o_exec, dtype=np.int64),
                        "slot": np.frombuffer(b.o_slot, dtype=np.int32), "tensor_id": tids,
                        "bad": bad, "digest": made})
    if kept:
        idx.outputs.details.extend({c: [first + r if c == "row" else h[c] for r, h in kept]
                                    for c in idx.outputs.details.columns})
    if sink is not None:
        fsis = np.repeat(np.array([f for _, f, _ in segments], np.int32),
                         np.diff(np.append(starts, b.row)))
        where = (fsis[ex], rows["offset"][ex], np.frombuffer(b.o_slot, dtype=np.int32))
        sink("outputs", first, where, b.tensors.kept(b.orow, bad, tids))


def _exec_loop(idx: IngestTarget, b: ExecBatch, fsi: int,
               records: Iterator[tuple[int, memoryview]], name: str) -> None:
    """The pure-Python execution loop."""
    packed = b.packed
    pack = EXEC_ROW.pack
    o_exec, o_slot, o_tid = b.o_exec, b.o_slot, b.o_tid
    interned = b.interned
    intern = idx.strings.intern
    hb = b.hb
    ev = plite.ExecutionEventLite()
    parse = ev.ParseFromString
    exec_base, out_base = b.exec_base, b.out_base
    row, orow = b.row, b.orow
    start = orow
    kinds = idx.executions.kinds
    assert kinds is not None
    kind_of = kinds.intern
    for offset, payload in records:
        orow0 = orow
        try:
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
            if n_out > MAX_CLAIMED_OUTPUTS and num_outputs > max(n_ids, n_protos):
                n_out = max(n_ids, n_protos)  # rows only for what the record carries
                idx.warn(f"{name}: record at byte {offset}: the execution claims {num_outputs} "
                         f"outputs but carries {n_out}; only those are indexed")
            gid = e.graph_id
            if gid:
                gid_id = interned.get(gid)
                if gid_id is None:
                    gid_id = interned[gid] = intern(gid.decode("utf-8", "replace"))
            else:
                gid_id = -1
            kind = kind_of((type_id, gid_id, num_outputs, mode, n_out, fsi))
            packed += pack(ev.wall_time, offset, out_base + orow, kind)
            exec_index = exec_base + row
            for slot in range(n_out):
                o_exec.append(exec_index)
                o_slot.append(slot)
                o_tid.append(out_ids[slot] if slot < n_ids else -1)
                if slot < n_protos and mode != NO_TENSOR:
                    hb.add_serialized(orow, mode, protos[slot], name, offset, idx.warn)
                orow += 1
            row += 1
        except RECORD_ERRORS as exc:  # the record is taken back whole
            del packed[row * EXEC_ROW.size:]
            del o_exec[orow0:], o_slot[orow0:], o_tid[orow0:]
            hb.drop_from(orow0)
            orow = orow0
            idx.skip_record(name, offset, why_failed(exc))
    b.row, b.orow = row, orow
    b.tensors.by_python(start, orow)


def _is_execution(payload: memoryview) -> bool:
    """Full check, once per new op type: the record really is a well-formed execution."""
    full = pb.DebugEvent()
    try:
        full.ParseFromString(payload)  # type: ignore[arg-type]
    except (DecodeError, ValueError):
        return False
    return full.WhichOneof("what") == "execution"
