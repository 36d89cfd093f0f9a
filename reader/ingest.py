"""The hot loops: graph traces and executions → numpy columns.

These run once per record, millions of times, so they are written for speed: one reused
protobuf message, locals bound outside the loop, strings interned through one dict lookup,
and the health vectors gathered as raw bytes per mode and decoded with one `np.frombuffer`
per batch instead of one per record.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
from google.protobuf.message import DecodeError

from reader import health as H
from reader.errors import CorruptRecordError
from reader.proto import tfdbg_events_pb2 as pb
from reader.tensors import decode_tensor, nonfinite_counts

if TYPE_CHECKING:
    from reader.logdir import DebugLogdir

_VEC_BYTES = {mode: 8 * n for mode, n in H.VECTOR_LEN.items()}


class _HealthBatch:
    """Collects per-row health sources for one batch, then decodes them in bulk."""

    def __init__(self) -> None:
        self.vec_rows: dict[int, list[int]] = {}
        self.vec_bytes: dict[int, list[bytes]] = {}
        self.slow: list[tuple[int, tuple[int, int, int, int, int, int, int]]] = []

    def add_vector(self, row: int, mode: int, content: bytes) -> None:
        rows = self.vec_rows.get(mode)
        if rows is None:
            rows = self.vec_rows[mode] = []
            self.vec_bytes[mode] = []
        rows.append(row)
        self.vec_bytes[mode].append(content)

    def add_proto(self, row: int, mode: int, proto: pb.TensorProto) -> None:
        """Slow path: FULL_TENSOR values, or summaries not stored as packed float64."""
        tv = decode_tensor(proto)
        if tv is None:
            return
        if mode == H.FULL_TENSOR:
            size, n_neg, n_pos, n_nan = nonfinite_counts(tv)
            bad = 1 if (n_neg or n_pos or n_nan) else 0
            self.slow.append((row, (tv.dtype, len(tv.shape), size, n_neg, n_pos, n_nan, bad)))
        elif mode in H.VECTOR_LEN:
            vec = np.asarray(tv.values, dtype=np.float64).reshape(-1)
            if len(vec) == H.VECTOR_LEN[mode]:
                self.add_vector(row, mode, vec.tobytes())

    def columns(self, n: int) -> dict[str, np.ndarray]:
        h = H.empty_health(n)
        for mode, rows in self.vec_rows.items():
            vecs = np.frombuffer(b"".join(self.vec_bytes[mode]), dtype=np.float64)
            H.fill_from_vectors(h, np.asarray(rows, dtype=np.int64), mode,
                                vecs.reshape(len(rows), -1))
        for row, (dtype, rank, size, n_neg, n_pos, n_nan, bad) in self.slow:
            h["dtype"][row] = dtype
            h["rank"][row] = rank
            h["size"][row] = size
            h["neg_inf"][row] = n_neg
            h["pos_inf"][row] = n_pos
            h["nan"][row] = n_nan
            h["bad"][row] = bad
        return h


def ingest_traces(idx: DebugLogdir, fsi: int, records: Iterator[tuple[int, memoryview]],
                  name: str) -> None:
    """Append one batch of `.graph_execution_traces` records to `idx.traces`."""
    b = idx.traces.builders()
    wall, gid_col, op_col, type_col = b["wall_time"], b["graph_id"], b["op_name"], b["op_type"]
    slot_col, mode_col, dev_col, off_col = b["slot"], b["mode"], b["device"], b["offset"]
    keys = idx._trace_keys
    trace_key = idx.trace_key
    devices: dict[str, int] = {}
    intern = idx.strings.intern
    hb = _HealthBatch()
    vec_bytes = _VEC_BYTES
    ev = pb.DebugEvent()
    parse = ev.ParseFromString
    which = ev.WhichOneof
    modes: set[int] = set()
    row = 0
    for offset, payload in records:
        try:
            parse(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            idx.corrupt_records += 1
            idx.warn(f"{name}: record at byte {offset} could not be parsed and was skipped")
            continue
        if which("what") != "graph_execution_trace":
            idx.corrupt_records += 1
            idx.warn(f"{name}: record at byte {offset} is not a graph execution trace; skipped")
            continue
        t = ev.graph_execution_trace
        k = (t.tfdbg_context_id, t.op_name)
        ids = keys.get(k)
        if ids is None:
            ids = trace_key(*k)
        dev_name = t.device_name
        dev = devices.get(dev_name)
        if dev is None:
            dev = devices[dev_name] = intern(dev_name)
        mode = t.tensor_debug_mode
        wall.append(ev.wall_time)
        gid_col.append(ids[0])
        op_col.append(ids[1])
        type_col.append(ids[2])
        slot_col.append(t.output_slot)
        mode_col.append(mode)
        dev_col.append(dev)
        off_col.append(offset)
        modes.add(mode)
        if mode != 1:  # NO_TENSOR carries an empty placeholder
            tp = t.tensor_proto
            content = tp.tensor_content
            if len(content) == vec_bytes.get(mode, -1):
                hb.add_vector(row, mode, content)
            elif tp.dtype:
                try:
                    hb.add_proto(row, mode, tp)
                except CorruptRecordError as exc:
                    idx.warn(f"{name}: record at byte {offset}: {exc}")
        row += 1
    if row == 0:
        return
    first = len(idx.traces)
    batch: dict[str, object] = dict(b)
    batch["fileset"] = np.full(row, fsi, dtype=np.int16)
    batch.update(hb.columns(row))
    idx.traces.extend(batch)  # type: ignore[arg-type]
    idx.modes |= modes
    bad = np.flatnonzero(idx.traces.col("bad")[first:] == 1)
    if len(bad):
        idx.add_alerts(0, bad + first, idx.traces.col("slot")[first:][bad],
                       idx.traces.col("wall_time")[first:][bad])


def ingest_executions(idx: DebugLogdir, fsi: int, records: Iterator[tuple[int, memoryview]],
                      name: str) -> None:
    """Append one batch of `.execution` records to `idx.executions` and `idx.outputs`."""
    b = idx.executions.builders()
    wall, type_col, gid_col = b["wall_time"], b["op_type"], b["graph_id"]
    nout_col = b["num_outputs"]
    mode_col, off_col, first_col, n_col = b["mode"], b["offset"], b["first_output"], b["n_outputs"]
    ob = idx.outputs.builders()
    o_exec, o_slot, o_tid = ob["execution"], ob["slot"], ob["tensor_id"]
    intern = idx.strings.intern
    hb = _HealthBatch()
    vec_bytes = _VEC_BYTES
    ev = pb.DebugEvent()
    parse = ev.ParseFromString
    which = ev.WhichOneof
    modes: set[int] = set()
    exec_base = len(idx.executions)
    out_base = len(idx.outputs)
    row = 0
    orow = 0
    for offset, payload in records:
        try:
            parse(payload)  # type: ignore[arg-type]  # upb takes any buffer
        except (DecodeError, ValueError):
            idx.corrupt_records += 1
            idx.warn(f"{name}: record at byte {offset} could not be parsed and was skipped")
            continue
        if which("what") != "execution":
            idx.corrupt_records += 1
            idx.warn(f"{name}: record at byte {offset} is not an execution; skipped")
            continue
        e = ev.execution
        mode = e.tensor_debug_mode
        out_ids = e.output_tensor_ids
        protos = e.tensor_protos
        n_out = max(len(out_ids), len(protos), e.num_outputs)
        wall.append(ev.wall_time)
        type_col.append(intern(e.op_type))
        gid_col.append(intern(e.graph_id) if e.graph_id else -1)
        nout_col.append(e.num_outputs)
        mode_col.append(mode)
        off_col.append(offset)
        first_col.append(out_base + orow)
        n_col.append(n_out)
        modes.add(mode)
        exec_index = exec_base + row
        for slot in range(n_out):
            o_exec.append(exec_index)
            o_slot.append(slot)
            o_tid.append(out_ids[slot] if slot < len(out_ids) else -1)
            if slot < len(protos) and mode != 1:
                tp = protos[slot]
                content = tp.tensor_content
                if len(content) == vec_bytes.get(mode, -1):
                    hb.add_vector(orow, mode, content)
                elif tp.dtype:
                    try:
                        hb.add_proto(orow, mode, tp)
                    except CorruptRecordError as exc:
                        idx.warn(f"{name}: record at byte {offset}: {exc}")
            orow += 1
        row += 1
    if row == 0:
        return
    batch: dict[str, object] = dict(b)
    batch["fileset"] = np.full(row, fsi, dtype=np.int16)
    idx.executions.extend(batch)  # type: ignore[arg-type]
    idx.modes |= modes
    if orow == 0:
        return
    health = hb.columns(orow)
    tids = np.asarray(o_tid, dtype=np.int64)
    # the execution's own output ids are authoritative; fall back to the vector's
    health["tensor_id"] = np.where(tids >= 0, tids, health["tensor_id"])
    obatch: dict[str, object] = {"execution": o_exec, "slot": o_slot, **health}
    idx.outputs.extend(obatch)  # type: ignore[arg-type]
    bad = np.flatnonzero(health["bad"] == 1)
    if len(bad):
        ex = np.asarray(o_exec, dtype=np.int64)[bad]
        idx.add_alerts(1, ex, np.asarray(o_slot, dtype=np.int32)[bad],
                       idx.executions.col("wall_time")[ex])
