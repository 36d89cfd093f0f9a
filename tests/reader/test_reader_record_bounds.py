"""A record's counts and shapes size nothing before they are checked against what it holds.

Values written here are computed by hand from what the record says (a repeated last value, a
count that cannot be one), never taken from the reader's own output. Logdirs are built with
the TF-free writer plus raw records, so nothing here runs TensorFlow.
"""

from __future__ import annotations

import math
import re
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hostile.raw import tensor, vector
from support.tui import add_step, health, start_reference

import reader.index.ingest as ingest
from reader import open_logdir
from reader.errors import CorruptRecordError
from reader.index import health as H
from reader.index.graphs import parse_tensor_name
from reader.index.sources import MAX_STACK, SourceIndex
from reader.io.problems import ProblemLog
from reader.io.tensors import decode_tensor, tensor_health
from reader.io.tfrecord import frame_record
from reader.modes import CONCISE_HEALTH, CURT_HEALTH, FULL_HEALTH
from reader.proto import tfdbg_events_pb2 as pb

T0 = 1_700_000_000.0




def peak_mb(fn: object) -> float:
    tracemalloc.start()
    try:
        fn()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1] / (1 << 20)
    finally:
        tracemalloc.stop()


# ------------------------------------------------------------------ FULL_TENSOR values
def test_a_repeated_value_is_counted_not_expanded() -> None:
    """[1, NaN, -inf] for 2**24 elements: the -inf stands for every element after the third."""
    n = 1 << 24
    tp = tensor(1, (n,), float_val=[1.0, float("nan"), float("-inf")])
    assert tensor_health(tp) == (1, 1, n, n - 2, 0, 1)
    assert peak_mb(lambda: tensor_health(tp)) < 1


@pytest.mark.parametrize("given", [[0.5], [float("nan")], [float("inf"), 2.0],
                                   [float("nan"), float("-inf"), 3.0], []])
def test_counts_match_the_decoded_tensor(given: list[float]) -> None:
    """The counts of a [10, 7] tensor given by a prefix of its values, worked out here by
    TensorFlow's rule (the last value given repeats to the end; none given: all zeros) in
    plain Python — not from the reader's own `decode_tensor` — and the decoded values agree."""
    full = (given + [given[-1]] * (70 - len(given))) if given else [0.0] * 70
    expected = (1, 2, 70, sum(v == -math.inf for v in full), sum(v == math.inf for v in full),
                sum(math.isnan(v) for v in full))
    tp = tensor(1, (10, 7), float_val=given)
    assert tensor_health(tp) == expected
    decoded = np.asarray(decode_tensor(tp).values).reshape(-1)  # type: ignore[union-attr]
    np.testing.assert_array_equal(decoded, np.array(full, np.float32))


def test_a_uniform_fill_decodes_without_allocating_it() -> None:
    tp = tensor(1, (4096, 4096), float_val=[float("nan")])
    out: list[object] = []
    assert peak_mb(lambda: out.append(decode_tensor(tp))) < 1
    values = out[0].values  # type: ignore[attr-defined]
    assert values.shape == (4096, 4096) and np.isnan(values[4095, 4095])


def test_odd_complex_values_are_refused_not_invented() -> None:
    with pytest.raises(CorruptRecordError, match="odd"):
        decode_tensor(tensor(8, (2,), scomplex_val=[1.0, 2.0, 3.0]))
    with pytest.raises(CorruptRecordError, match="odd"):
        tensor_health(tensor(18, (1,), dcomplex_val=[1.0]))
    even = decode_tensor(tensor(8, (2,), scomplex_val=[1.0, 2.0, 3.0, 4.0]))
    assert even is not None and even.values.tolist() == [1 + 2j, 3 + 4j]


def test_more_dimensions_than_numpy_holds_are_refused_alike() -> None:
    tp = tensor(1, (1,) * 65, float_val=[float("nan")])
    for read in (decode_tensor, tensor_health):
        with pytest.raises(CorruptRecordError, match="65 dimensions"):
            read(tp)


# ------------------------------------------------------------------ summary vectors
def test_impossible_summary_counts_read_as_unknown() -> None:
    nan, inf = float("nan"), float("inf")
    vecs = np.array([
        health(3, 8, pos=8),  # sane and clean
        [nan] * 11,  # nothing is known: not "clean"
        [4, 1, 1, 2, 8, 0, 0, 1e300, 0, 0, 8],  # an absurd NaN count is still a NaN claim
        [5, 1, 1, 2, 8, -1e300, inf, 0, -5, 0, 8],  # +inf of them: a claim as well
        [6, 1, 1, 40000, 8, 0, 0, nan, 0, 0, 8],  # rank past int16; NaN count unknown
    ], dtype=np.float64)
    h = H.empty_health(len(vecs))
    with np.errstate(all="raise"):  # nothing is cast unchecked
        insane = H.fill_from_vectors(h, np.arange(len(vecs)), FULL_HEALTH, vecs)
    assert insane.tolist() == [False, True, True, True, True]
    assert h["bad"].tolist() == [0, -1, 1, 1, -1]
    assert h["tensor_id"].tolist() == [3, -1, 4, 5, 6]
    assert h["nan"].tolist() == [0, -1, -1, 0, -1]
    assert h["neg_inf"].tolist() == [0, -1, 0, -1, 0]
    assert h["neg"].tolist() == [0, -1, 0, -1, 0]
    assert h["rank"].tolist() == [2, -1, 2, 2, -1]


@pytest.mark.parametrize(("mode", "vec", "bad"), [
    (CURT_HEALTH, [1, float("nan")], -1),
    (CURT_HEALTH, [1, 1e300], 1),
    (CONCISE_HEALTH, [1, 4, float("nan"), 0, 2], 1),  # 2 NaN known, the -inf count not
    (CONCISE_HEALTH, [1, 4, float("nan"), 0, 0], -1),
])
def test_bad_from_partly_impossible_summaries(mode: int, vec: list[float], bad: int) -> None:
    h = H.empty_health(1)
    H.fill_from_vectors(h, np.arange(1), mode, np.array([vec], dtype=np.float64))
    assert int(h["bad"][0]) == bad


# ------------------------------------------------------------------ whole logdirs
def _logdir(d: Path) -> tuple[Path, Path]:
    ref = start_reference(d)
    add_step(ref, 0, bad=False)
    ref.writer.close()
    (traces,) = d.glob("*.graph_execution_traces")
    (execution,) = d.glob("*.execution")
    return traces, execution


def _append(path: Path, *events: pb.DebugEvent) -> list[int]:
    offsets = []
    with open(path, "ab") as f:
        for ev in events:
            offsets.append(f.tell())
            f.write(frame_record(ev.SerializeToString()))
    return offsets


def _trace(vec: pb.TensorProto, mode: int = FULL_HEALTH) -> pb.DebugEvent:
    g = pb.GraphExecutionTrace(tfdbg_context_id="g-train-step", op_name="MatMul",
                               tensor_debug_mode=mode, device_name="/cpu:0")
    g.tensor_proto.CopyFrom(vec)
    return pb.DebugEvent(wall_time=T0, graph_execution_trace=g)


def _names(warnings: list[str], name: str, offset: int) -> list[str]:
    return [w for w in warnings if name in w and re.search(rf"\b{offset}\b", w)]


@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "pure"])
def test_claims_a_record_cannot_hold_are_warned_and_bounded(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compiled: bool) -> None:
    if not compiled:
        monkeypatch.setattr(ingest, "NATIVE", None)
    elif ingest.NATIVE is None:
        pytest.skip("compiled core not built")
    traces, execution = _logdir(tmp_path)
    before = open_logdir(str(tmp_path))
    n_exec, n_out, n_traces = len(before.executions), len(before.outputs), len(before.traces)
    huge = pb.Execution(op_type="Relu", num_outputs=2**31 - 1, tensor_debug_mode=FULL_HEALTH)
    (e_off,) = _append(execution, pb.DebugEvent(wall_time=T0, execution=huge))
    nan = float("nan")
    t_offs = _append(traces, _trace(vector([nan] * 11)),
                     _trace(vector([*health(7, 12, nan=3), 0.0])),
                     _trace(vector(health(8, 12, nan=3)[:9])))
    logdir = open_logdir(str(tmp_path))
    warnings = logdir.all_warnings()
    assert len(logdir.executions) == n_exec + 1
    assert len(logdir.outputs) == n_out  # no row per claimed output
    assert logdir.executions.num_outputs[n_exec] == 2**31 - 1  # what the record says, kept
    assert len(_names(warnings, execution.name, e_off)) == 1
    assert len(logdir.traces) == n_traces + 3
    for off in t_offs:
        assert len(_names(warnings, traces.name, off)) == 1, (off, warnings)
    assert logdir.traces.bad[n_traces:].tolist() == [-1, -1, -1]  # unknown, never clean


def test_a_unicode_digit_slot_is_part_of_the_name() -> None:
    """'²'.isdigit() is true but int('²') fails: such a slot is no slot."""
    assert parse_tensor_name("x:\u00b2") == ("x:\u00b2", 0)
    assert parse_tensor_name("x:12") == ("x", 12)


def test_a_huge_stack_keeps_its_innermost_frames() -> None:
    """A record listing 500,000 frame ids resolves the innermost MAX_STACK and says so."""
    index = SourceIndex()
    index.add_fileset()
    inner = pb.StackFrameWithId(id="f499999")
    inner.file_line_col.line = 7
    index.ingest_frames(0, [(0, memoryview(pb.DebugEvent(stack_frame_with_id=inner)
                                           .SerializeToString()))], "x.stack_frames",
                        ProblemLog())
    ids = [f"f{i}" for i in range(500_000)]
    frames = index.stack(ids)
    assert len(frames) == MAX_STACK + 1
    assert not frames[0].resolved and f"{500_000 - MAX_STACK} outer frames" in frames[0].file
    assert frames[-1].line == 7 and not frames[-2].resolved
