"""Small `.execution` files gathered into one batch (`reader.index.exec_gather`) make the
very index a file-by-file read makes: every column of every table, the alerts, the warnings
(their order aside: a gathered batch's impossible-summary warnings come after its parse
warnings), the skipped records, the modes, the digests and the health an export is told.

The logdir: 45 hosts without metadata (as a run of many hosts copied in part), one
`.execution` file each, between them every kind of row a batch carries — FULL_HEALTH
summaries clean and with NaN, impossible summaries (a negative id, +∞, 1e300, a negative
count), a FULL_TENSOR tensor decoded in full, two outputs, CURT_HEALTH, CONCISE_HEALTH and
NO_TENSOR records, a record that is not a record — and one host whose file is too big to be
gathered, read in the middle of the others."""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import reader.index.exec_gather as gather
import reader.index.ingest as ingest
import reader.index.logdir as logdir_module
from reader.index.logdir import DebugLogdir
from reader.index.schema import tensor_parts
from reader.io.tfrecord import frame_record
from reader.proto import tfdbg_events_pb2 as pb

T0 = 1_700_000_000.0


def _vector(values: list[float]) -> pb.TensorProto:
    tp = pb.TensorProto(dtype=2, tensor_content=struct.pack(f"<{len(values)}d", *values))
    tp.tensor_shape.dim.add(size=len(values))
    return tp


def _full(tid: float, size: float, nan: float = 0, pos: float = 0, neg: float = 0
          ) -> pb.TensorProto:
    """A FULL_HEALTH summary: id, device, dtype, rank, size, -inf, +inf, NaN, -, 0, +."""
    return _vector([tid, 1, 1, 1, size, 0, 0, nan, neg, 0, pos])


def _execution(op: str, protos: list[pb.TensorProto], mode: int = 4,
               outputs: tuple[int, ...] = (), num_outputs: int | None = None,
               wall: float = T0) -> bytes:
    e = pb.Execution(op_type=op, tensor_debug_mode=mode, output_tensor_ids=list(outputs),
                     num_outputs=len(protos) if num_outputs is None else num_outputs)
    e.tensor_protos.extend(protos)
    return pb.DebugEvent(wall_time=wall, execution=e).SerializeToString()


def _records(i: int) -> list[bytes]:
    k, wall = i % 9, T0 + i
    if k == 0:
        return [_execution("Relu", [_full(1, 4, pos=4)], outputs=(1,), wall=wall)]
    if k == 1:
        return [_execution("Log", [_full(2, 4, nan=1, pos=3)], outputs=(2,), wall=wall)]
    if k == 2:  # impossible: a negative id, +∞ values
        return [_execution("Relu", [_full(-5, 4, pos=float("inf"))], wall=wall)]
    if k == 3:  # decoded in full: one NaN of three
        t = pb.TensorProto(dtype=1, float_val=[1.0, float("nan"), 2.0])
        t.tensor_shape.dim.add(size=3)
        return [_execution("Add", [t], mode=7, outputs=(5,), wall=wall)]
    if k == 4:  # two outputs, the second's negative count past any real one
        return [_execution("Split", [_full(6, 4, pos=4), _full(7, 4, neg=1e300)],
                           outputs=(6, 7), wall=T0 - i)]
    if k == 5:  # CURT_HEALTH, clean then bad
        return [_execution("Relu", [_vector([8, 0])], mode=1, outputs=(8,), wall=wall),
                _execution("Relu", [_vector([9, 1])], mode=1, outputs=(9,), wall=wall)]
    if k == 6:  # CONCISE_HEALTH with a NaN
        return [_execution("Mul", [_vector([10, 4, 0, 1, 0])], mode=3, outputs=(10,),
                           wall=wall)]
    if k == 7:
        return [_execution("NoTensor", [], mode=0, num_outputs=2, outputs=(11, 12), wall=wall)]
    return [_execution("Relu", [_full(13, 4, pos=4)], outputs=(13,), wall=wall),
            b"\x01\x02 not a record",
            _execution("Relu", [_full(14, 4, pos=4, nan=-3)], outputs=(14,), wall=wall)]


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hosts")
    for i in range(45):
        with open(d / f"tfdbg_events.{int(T0) + 1 + i}.h{i:02d}.execution", "wb") as f:
            f.write(b"".join(frame_record(r) for r in _records(i)))
    big = [_execution("Relu", [_full(j, 4, pos=4, nan=j % 7 == 0)], outputs=(j,),
                      wall=T0 + j) for j in range(1500)]  # past SMALL_FILE: not gathered
    with open(d / f"tfdbg_events.{int(T0) + 23}.h22b.execution", "wb") as f:
        f.write(b"".join(frame_record(r) for r in big))
    assert (d / f"tfdbg_events.{int(T0) + 23}.h22b.execution").stat().st_size \
        > gather.SMALL_FILE
    return d


def _index(path: Path, digests: bool) -> dict[str, Any]:
    told: list[tuple[str, int, list[list[Any]], dict[str, list[Any]]]] = []
    lg = DebugLogdir(str(path), digests=digests)
    lg.health_sink = lambda name, first, where, kept: told.append(
        (name, first, [np.asarray(w).tolist() for w in where],
         {c: v.tolist() for c, v in kept().items()}))
    lg.update()
    alerts = lg.alerts()
    sunk: dict[str, Any] = {}  # what the export is told, batch cuts aside
    for name, first, where, kept in told:
        part = sunk.setdefault(name, {"first": first, "rows": 0, "where": None, "kept": {}})
        assert first == part["first"] + part["rows"], "the batches follow each other"
        part["rows"] += len(where[0])
        part["where"] = where if part["where"] is None else [
            a + b for a, b in zip(part["where"], where, strict=True)]
        for c, v in kept.items():
            part["kept"][c] = part["kept"].get(c, []) + v
    return {"columns": {name: {c: t.col(c).tolist() for c in t.columns}
                        for name, t in tensor_parts(lg).items()},
            "warnings": sorted(lg.all_warnings()), "corrupt": lg.corrupt_records,
            "modes": sorted(lg.modes), "alerts": [np.asarray(getattr(alerts, c)).tolist()
                                                  for c in ("kind", "index", "slot",
                                                            "wall_time", "graph_kinds")],
            "sunk": sunk}


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure-python"])
@pytest.mark.parametrize("digests", [False, True])
@pytest.mark.parametrize("batch_rows", [gather.GATHER_ROWS, 5])
def test_gathered_small_files_index_as_read_one_by_one(
        hosts: Path, compiled: bool, digests: bool, batch_rows: int,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(`batch_rows` 5: a batch is added every few files, as the end of a read does.)"""
    if not compiled:
        monkeypatch.setattr(ingest, "NATIVE", None)
    elif ingest.NATIVE is None:
        pytest.skip("the compiled core is not built here")
    one_by_one = _index_with(hosts, digests, monkeypatch, small=-1, rows=batch_rows)
    gathered = _index_with(hosts, digests, monkeypatch, small=gather.SMALL_FILE,
                           rows=batch_rows)
    assert one_by_one == gathered
    # the logdir holds what the docstring says (the comparison is not of two empty indexes)
    assert len(gathered["columns"]["executions"]["kind"]) == 45 + 5 + 5 + 1500
    assert gathered["corrupt"] == 5
    assert sum("impossible values" in w for w in gathered["warnings"]) == 5 + 5 + 5
    assert len(gathered["alerts"]) > 0 and gathered["sunk"]["outputs"]["rows"] > 1500


def _index_with(path: Path, digests: bool, monkeypatch: pytest.MonkeyPatch, small: int,
                rows: int) -> dict[str, Any]:
    with monkeypatch.context() as m:
        m.setattr(logdir_module, "SMALL_FILE", small)  # -1: no file is small
        m.setattr(gather, "GATHER_ROWS", rows)
        return _index(path, digests)
