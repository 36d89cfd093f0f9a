"""The TF-free writer: byte-exact records, health vectors, and TensorFlow's reader as judge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dumper import DumperError, LogdirWriter, health_vector
from dumper.tensors import MODES, decode_tensor_proto, encode_tensor_proto, mode_number
from reader.io.tfrecord import ScanState, scan_records
from reader.proto import tfdbg_events_pb2 as pb

DTYPES = ["float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
          "uint16", "uint32", "uint64", "bool", "complex64", "complex128"]


def _events(path: Path) -> list[pb.DebugEvent]:
    state = ScanState()
    out = [pb.DebugEvent.FromString(bytes(p)) for _, p in scan_records(path.read_bytes(), 0, state)]
    assert state.bad_records == 0 and not state.stopped
    return out


def _one(tmp: Path, suffix: str) -> Path:
    (found,) = tmp.glob(f"*.{suffix}")
    return found


def _small_logdir(tmp: Path, mode: str) -> tuple[LogdirWriter, dict[str, object]]:
    w = LogdirWriter(tmp, run_id="abc", file_timestamp=1700000000)
    fi = w.add_source_file("/x/train.py", ["import tensorflow as tf", "y = tf.math.log(p)"])
    frame = w.add_stack_frame(fi, 2, "cross_entropy")
    dev = w.add_device("/job:localhost/replica:0/task:0/device:CPU:0")
    w.add_graph("g0", "")
    w.add_graph("g1", "train_step", "g0")
    w.add_graph("g2", "cross_entropy", "g1")
    w.add_op("g2", "Placeholder", "probs", [], stack_frame_ids=[frame])
    (log_id,) = w.add_op("g2", "Log", "Log", ["probs:0"], stack_frame_ids=[frame])
    w.add_op("g2", "Unique", "u", ["Log:0"], num_outputs=2)
    probs = np.array([[0.5, 0.0], [1.0, 0.25]], np.float32)
    with np.errstate(divide="ignore"):
        logp = np.log(probs)
    w.add_graph_trace("g2", "probs", 0, mode, health_vector(mode, probs, log_id - 1), wall_time=1.0)
    w.add_graph_trace("g2", "Log", 0, mode, health_vector(mode, logp, log_id), wall_time=2.0)
    w.add_graph_trace("g2", "u", 1, mode, health_vector(mode, np.arange(3)), wall_time=3.0)
    w.add_execution("__inference_train_step_1", mode, [health_vector(mode, np.float32(0.5))],
                    graph_id="g1", input_tensor_ids=[1, 2], output_tensor_ids=[3],
                    stack_frame_ids=[frame], output_tensor_device_ids=[dev], wall_time=4.0)
    w.add_execution("Log", mode, [health_vector(mode, logp)], output_tensor_ids=[5],
                    stack_frame_ids=[frame], wall_time=5.0)
    return w, {"logp": logp, "probs": probs, "frame": frame}


def test_hand_encoded_records_are_protobufs_own_bytes(tmp_path: Path) -> None:
    w, info = _small_logdir(tmp_path, "FULL_HEALTH")
    vectors = np.stack([health_vector("FULL_HEALTH", info["logp"], 7)] * 3)  # type: ignore[list-item]
    w.add_graph_traces("g2", "Log", 0, "FULL_HEALTH", vectors, wall_times=[6.0, 7.0, 8.0])
    w.close()
    for suffix in ("execution", "graph_execution_traces"):
        raw = _one(tmp_path, suffix).read_bytes()
        for _, payload in scan_records(raw, 0, ScanState()):
            event = pb.DebugEvent.FromString(bytes(payload))
            assert event.SerializeToString(deterministic=True) == bytes(payload)
    traces = _events(_one(tmp_path, "graph_execution_traces"))
    assert [t.wall_time for t in traces] == [1.0, 2.0, 3.0, 6.0, 7.0, 8.0]
    assert traces[2].graph_execution_trace.output_slot == 1
    assert not traces[2].graph_execution_trace.tensor_proto.ByteSize()  # int: placeholder
    log_vec = np.frombuffer(traces[1].graph_execution_trace.tensor_proto.tensor_content, "<f8")
    assert log_vec.tolist() == [2, -1, 1, 2, 4, 1, 0, 0, 2, 1, 0]
    (execution, eager_log) = [e.execution for e in _events(_one(tmp_path, "execution"))]
    assert execution.graph_id == "g1" and list(execution.input_tensor_ids) == [1, 2]
    assert list(execution.code_location.stack_frame_ids) == [info["frame"]]
    assert eager_log.op_type == "Log" and eager_log.tensor_debug_mode == 4
    (meta,) = _events(_one(tmp_path, "metadata"))
    assert meta.debug_metadata.tfdbg_run_id == "abc"
    assert meta.debug_metadata.file_version == "debug.Event:1"


def test_health_vectors() -> None:
    a = np.array([[-np.inf, np.nan, 0.0], [-2.0, 3.0, np.inf]], np.float32)
    assert health_vector("CURT_HEALTH", a, 4).tolist() == [4, 1]  # type: ignore[union-attr]
    assert health_vector("CONCISE_HEALTH", a, 4).tolist() == [4, 6, 1, 1, 1]  # type: ignore[union-attr]
    assert health_vector("FULL_HEALTH", a, 4, 1).tolist() == [  # type: ignore[union-attr]
        4, 1, 1, 2, 6, 1, 1, 1, 1, 1, 1]
    shape = health_vector("SHAPE", np.zeros((1, 2, 3, 4, 5, 6, 7), np.int32), 9)
    assert shape.tolist() == [9, 3, 7, 5040, 2, 3, 4, 5, 6, 7]  # type: ignore[union-attr]
    assert health_vector("SHAPE", np.zeros((2, 3)), 1).tolist() == [  # type: ignore[union-attr]
        1, 2, 2, 6, 2, 3, 0, 0, 0, 0]
    assert health_vector("FULL_HEALTH", np.arange(3)) is None  # ints are not summarized
    assert health_vector("NO_TENSOR", a) is None


@pytest.mark.parametrize("dtype", DTYPES)
def test_tensor_proto_round_trip(dtype: str) -> None:
    rng = np.random.default_rng(1)
    arr = (rng.random((3, 4)) * 100).astype(dtype)
    proto = pb.TensorProto.FromString(encode_tensor_proto(arr))
    back = decode_tensor_proto(proto)
    assert back is not None and back.dtype == arr.dtype and np.array_equal(back, arr)


def test_mode_names_and_errors(tmp_path: Path) -> None:
    assert mode_number("full_health") == 4 and mode_number(7) == 7
    with pytest.raises(DumperError, match="unknown debug mode"):
        mode_number("FULL_NUMERICS")
    w, _ = _small_logdir(tmp_path, "CURT_HEALTH")
    with pytest.raises(DumperError, match="was not added"):
        w.add_graph_trace("g2", "nope", 0, "CURT_HEALTH", np.zeros(2))
    with pytest.raises(DumperError, match="no output slot"):
        w.add_graph_trace("g2", "Log", 3, "CURT_HEALTH", np.zeros(2))
    with pytest.raises(DumperError, match="must be added before"):
        w.add_graph("g9", "x", outer_graph_id="missing")
    with pytest.raises(DumperError, match="unknown stack frame"):
        w.add_execution("Neg", "CURT_HEALTH", stack_frame_ids=["nope"])
    with pytest.raises(DumperError, match="op:slot"):
        w.add_op("g2", "Neg", "n", ["Log"])
    w.close()
    with pytest.raises(DumperError, match="already exists"):
        LogdirWriter(tmp_path, file_timestamp=1700000000)
    with pytest.raises(DumperError, match="closed"):
        w.add_execution("Neg", 2)


@pytest.mark.tf
@pytest.mark.parametrize("mode", list(MODES))
def test_tensorflow_reads_what_the_writer_writes(tmp_path: Path, mode: str) -> None:
    pytest.importorskip("tensorflow")
    from support.tf_oracle import tf_oracle
    from tensorflow.python.debug.lib import debug_events_reader

    w, info = _small_logdir(tmp_path, mode)
    if mode not in ("NO_TENSOR", "FULL_TENSOR"):
        v = health_vector(mode, info["logp"], 2)
        w.add_graph_traces("g2", "Log", 0, mode, np.stack([v, v]), wall_times=[6.0, 7.0])  # type: ignore[list-item]
    w.close()
    with debug_events_reader.DebugDataReader(str(tmp_path)) as r:
        r.update()
        traces = r.graph_execution_traces()
        n_traces = 3 if mode in ("NO_TENSOR", "FULL_TENSOR") else 5
        assert r.num_executions() == 2 and len(traces) == n_traces
        assert [t.op_type for t in traces[:3]] == ["Placeholder", "Log", "Unique"]
        assert r.read_graph_execution_trace(traces[1]).graph_ids == ("g0", "g1", "g2")
        digest = r.graph_by_id("g2").get_op_creation_digest("Log")
        assert r.read_graph_op_creation_stack_trace(digest)[1] == [
            ("/x/train.py", 2, "cross_entropy")]
        assert r.graph_by_id("g2").get_op_consumers("Log") == [(0, "u", 0)]
        log_value = r.read_graph_execution_trace(traces[1]).debug_tensor_value
        execution = r.read_execution(r.executions()[1])
        expected = health_vector(mode, info["logp"], 2)
        if mode == "FULL_TENSOR":
            assert np.array_equal(r.graph_execution_trace_to_tensor_value(traces[1]),
                                  info["logp"])
            assert np.array_equal(r.execution_to_tensor_values(execution)[0], info["logp"])
        elif mode == "NO_TENSOR":
            assert log_value is None and execution.debug_tensor_values is None
        else:
            assert list(log_value) == expected.tolist()  # type: ignore[union-attr]
    oracle = tf_oracle(str(tmp_path))
    if mode in ("NO_TENSOR", "SHAPE"):
        assert oracle["alerts_total"] == 0
    else:
        assert oracle["first"]["op_type"] == "Log" and oracle["first"]["kind"] == "graph"
    from reader.index.logdir import DebugLogdir

    ours = DebugLogdir(str(tmp_path))
    ours.update()
    assert (len(ours.executions), len(ours.traces)) == (2, n_traces)
