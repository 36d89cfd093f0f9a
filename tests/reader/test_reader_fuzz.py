"""Random and mutated bytes reach the record scanner and the parser: only our errors come out.

Hypothesis drives three layers: TFRecord framing, whole logdirs whose files are mutated copies
of a real one, and TensorProto decoding. Derandomized and database-free: CI runs the same
examples every time (to search further, run with derandomize off and more examples).
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reader import ReaderError, open_logdir
from reader.errors import CorruptRecordError
from reader.io.tensors import decode_tensor
from reader.io.tfrecord import ScanState, frame_record, scan_records
from reader.proto import tfdbg_events_pb2 as pb

SUFFIXES = ["execution", "graph_execution_traces", "graphs", "stack_frames", "source_files",
            "metadata"]


@settings(derandomize=True, database=None)
@given(st.binary(max_size=4096), st.integers(0, 1 << 40))
def test_scanner_never_raises_on_random_bytes(data: bytes, base: int) -> None:
    state = ScanState()
    records = list(scan_records(data, base, state, "x"))
    assert base <= state.resume_offset <= base + len(data)
    for off, payload in records:
        assert base <= off < base + len(data)
        assert len(payload) <= len(data)


@settings(derandomize=True, database=None)
@given(st.lists(st.binary(max_size=300), max_size=20), st.data())
def test_scanner_round_trips_and_resumes(payloads: list[bytes], data: st.DataObject) -> None:
    blob = b"".join(frame_record(p) for p in payloads)
    cut = data.draw(st.integers(0, len(blob)))
    state = ScanState()
    first = [bytes(p) for _, p in scan_records(blob[:cut], 0, state, "x")]
    rest_state = ScanState()
    rest = [bytes(p) for _, p in scan_records(blob[state.resume_offset:], state.resume_offset,
                                              rest_state, "x")]
    assert first + rest == payloads
    assert not state.problems and not rest_state.problems


@pytest.fixture(scope="module")
def real_logdir(make_tf_logdir: Callable[..., str]) -> str:
    return make_tf_logdir("mixed", "FULL_TENSOR")


def _exercise(path: str) -> None:
    try:
        logdir = open_logdir(path)
    except ReaderError:
        return
    logdir.all_warnings()
    for i in range(len(logdir.traces)):
        try:
            logdir.read_trace(i)
        except ReaderError:
            pass
    for i in range(len(logdir.executions)):
        try:
            logdir.stack(logdir.read_execution(i).stack_frame_ids)
        except ReaderError:
            pass
    alerts = logdir.alerts()
    for k in range(min(3, len(alerts))):
        try:
            logdir.alert_stack(int(alerts.kind[k]), int(alerts.index[k]))
        except ReaderError:
            pass
    for host, path_ in logdir.source_files()[:3]:
        logdir.source_lines(host, path_)


@settings(max_examples=40, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(suffix=st.sampled_from(SUFFIXES), data=st.data())
def test_mutated_logdirs_load_or_fail_cleanly(real_logdir: str,
                                              tmp_path_factory: pytest.TempPathFactory,
                                              suffix: str, data: st.DataObject) -> None:
    d = tmp_path_factory.mktemp("fuzz")
    shutil.rmtree(d)
    shutil.copytree(real_logdir, d)
    (target,) = Path(d).glob(f"*.{suffix}")
    blob = bytearray(target.read_bytes())
    for _ in range(data.draw(st.integers(1, 8))):
        if not blob:
            break
        pos = data.draw(st.integers(0, len(blob) - 1))
        op = data.draw(st.sampled_from(["flip", "set", "cut", "insert"]))
        if op == "flip":
            blob[pos] ^= 1 << data.draw(st.integers(0, 7))
        elif op == "set":
            blob[pos] = data.draw(st.integers(0, 255))
        elif op == "cut":
            del blob[pos:pos + data.draw(st.integers(1, 64))]
        else:
            blob[pos:pos] = data.draw(st.binary(min_size=1, max_size=32))
    target.write_bytes(bytes(blob))
    _exercise(str(d))


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(st.binary(max_size=512))
def test_random_debug_events_parse_or_fail_cleanly(payload: bytes) -> None:
    ev = pb.DebugEvent()
    try:
        ev.ParseFromString(payload)
    except Exception:
        return
    for tp in [ev.graph_execution_trace.tensor_proto, *ev.execution.tensor_protos]:
        try:
            decode_tensor(tp)
        except CorruptRecordError:
            pass


dtypes = st.sampled_from([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 17, 18, 19, 20, 21, 22, 23, 99])


@settings(max_examples=400, deadline=None, derandomize=True, database=None)
@given(dtype=dtypes, dims=st.lists(st.integers(-2, 1 << 40), max_size=5),
       content=st.binary(max_size=256), floats=st.lists(st.floats(), max_size=8),
       ints=st.lists(st.integers(-(1 << 31), (1 << 31) - 1), max_size=8),
       halves=st.lists(st.integers(0, 65535), max_size=8))
def test_tensor_decoding_only_raises_our_error(dtype: int, dims: list[int], content: bytes,
                                               floats: list[float], ints: list[int],
                                               halves: list[int]) -> None:
    tp = pb.TensorProto(dtype=dtype, tensor_content=content)
    for d in dims:
        tp.tensor_shape.dim.add(size=d)
    tp.float_val.extend(floats)
    tp.double_val.extend(floats)
    tp.int_val.extend(ints)
    tp.half_val.extend(halves)
    try:
        tv = decode_tensor(tp)
    except CorruptRecordError:
        return
    if tv is not None:
        assert tv.values.shape == tv.shape
