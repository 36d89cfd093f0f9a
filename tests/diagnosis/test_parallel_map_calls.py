"""A dataset function whose parallel calls interleave their records is still diagnosed right.

Why: `d6_data_map_parallel_normalize` (a per-clip standardisation mapped with
`num_parallel_calls=AUTOTUNE`, one silent clip: 0/0) was diagnosed right on every quiet run
and wrong in CI on a loaded machine: "its divisor reduce_std/Sqrt:0 holds no zeros, so the
quotient overflowed". Two calls had overlapped and finished their ops in different orders, so
the k-th `truediv` record was not the same call's as the k-th `Sqrt` record.

The order a loaded machine gives cannot be asked of TensorFlow, so this test records the
program once (real TensorFlow) and then writes the interleaving CI saw into a copy of its
trace file: the silent call A and the call B after it run as A's ops up to its Sqrt, B's ops
up to its truediv, A's Sqrt and truediv, B's truediv — B's Sqrt record now comes before A's,
A's truediv before B's. Records keep their bytes (and so their CRCs); they only trade places,
each place keeping its wall time. Both the recording as made and the forged copy must name
the map function's division (line 29), a zero divisor and the 0/0.
"""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import tf_env
from support.tf_fork import run_program as run_tf

from reader.io.tfrecord import frame_record
from reader.proto import tfdbg_events_pb2 as pb

pytestmark = [pytest.mark.tf, pytest.mark.timeout(600)]

PROGRAM = Path(__file__).resolve().parents[1] / "programs" / "zoo" / \
    "d6_data_map_parallel_normalize.py"
FIX_LINE = 29  # `clip = (clip - tf.reduce_mean(clip)) / tf.math.reduce_std(clip)  # FIX`


def _records(path: Path) -> list[bytes]:
    """The payloads of a TFRecord file, in order."""
    data, out, at = path.read_bytes(), [], 0
    while at < len(data):
        (length,) = struct.unpack_from("<Q", data, at)
        out.append(data[at + 12:at + 12 + length])
        at += 12 + length + 4
    return out


def _report(logdir: Path) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-m", "tfdbg_tui", "report", "--json",
                           str(logdir)], env=tf_env(), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 1, done.stderr[-2000:]
    return json.loads(done.stdout)


def _check(report: dict[str, Any]) -> None:
    first = report["first_alerts"][0]
    origin, text = first["diagnosis"]["origin"], first["diagnosis"]["explanation"]
    assert origin["op_type"] == "RealDiv", (origin, text)
    assert origin["fix_frame"]["line"] == FIX_LINE, (origin["fix_frame"], text)
    assert "0/0" in text and "holds 1 zero" in text and "64 zeros" in text, text
    assert "overflow" not in text, text


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logdir = tmp_path_factory.mktemp("d6") / "logdir"
    status, output = run_tf([PROGRAM, logdir])
    assert status == 0, output[-3000:]
    return logdir


def _interleave(logdir: Path, out: Path) -> None:
    """Copy `logdir` to `out` with the silent call and the next interleaved (module docstring)."""
    shutil.copytree(logdir, out)
    (trace_file,) = out.glob("*.graph_execution_traces")
    events = [pb.DebugEvent.FromString(p) for p in _records(trace_file)]
    fn_id = next(e.graph_execution_trace.tfdbg_context_id for e in events
                 if e.graph_execution_trace.op_name == "truediv")
    mine = [i for i, e in enumerate(events)
            if e.graph_execution_trace.tfdbg_context_id == fn_id]
    calls: list[list[int]] = []  # each call's record positions: from Mean:0 on
    for i in mine:
        if events[i].graph_execution_trace.op_name == "Mean" or not calls:
            calls.append([])
        calls[-1].append(i)
    silent = next(k for k, c in enumerate(calls)
                  if any(events[i].graph_execution_trace.op_name == "truediv"
                         and _nan(events[i]) for i in c))
    assert silent + 1 < len(calls), "the silent clip is the last call: nothing to interleave"
    a, b = calls[silent], calls[silent + 1]

    def upto(call: list[int], op: str) -> int:
        return next(j for j, i in enumerate(call) if events[i].graph_execution_trace.op_name == op)

    sa, tb = upto(a, "reduce_std/Sqrt"), upto(b, "truediv")
    order = a[:sa] + b[:tb] + a[sa:] + b[tb:]
    places = sorted(a + b)
    assert sorted(order) == places
    new = list(events)
    for place, source in zip(places, order, strict=True):
        moved = pb.DebugEvent()
        moved.CopyFrom(events[source])
        moved.wall_time = events[place].wall_time
        new[place] = moved
    trace_file.write_bytes(b"".join(frame_record(e.SerializeToString()) for e in new))


def _nan(event: pb.DebugEvent) -> bool:
    """FULL_HEALTH: [tensor id, device, dtype, rank, size, -inf, +inf, nan, -, 0, +]."""
    content = event.graph_execution_trace.tensor_proto.tensor_content
    return len(content) == 88 and struct.unpack("<11d", content)[7] > 0


def test_the_recording_as_made(recorded: Path) -> None:
    _check(_report(recorded))


def test_two_calls_interleaved_as_on_a_loaded_machine(recorded: Path, tmp_path: Path) -> None:
    forged = tmp_path / "interleaved"
    _interleave(recorded, forged)
    _check(_report(forged))


@pytest.mark.parametrize(("producers", "consumers", "k", "expected"), [
    ([0, 2, 4], [1, 3, 5], 1, [1]),  # one call at a time: the k-th is certain
    ([1, 3, 5], [0, 2, 4], 1, [1]),  # (the producer's record after its consumer's: still)
    ([0, 1, 2, 3], [4, 5, 6, 7], 1, [1, 0, 2, 3]),  # four calls at once: any of them
    ([0, 1, 4, 5], [2, 3, 6, 7], 2, [2, 3]),  # two at once: the k-th or its neighbour
    ([0, 2, 3, 5, 7], [1, 4, 6, 8, 9], 1, [1, 2, 3, 4]),  # (its overlap group only)
    ([0, 2, 3, 5, 7], [1, 4, 6, 8, 9], 0, [0]),
])
def test_which_producer_records_may_be_the_calls(producers: list[int], consumers: list[int],
                                                 k: int, expected: list[int]) -> None:
    import numpy as np

    from reader.diagnosis.concurrent_calls import overlap_candidates

    got = overlap_candidates(np.array(consumers), np.array(producers), k)
    assert sorted(got) == sorted(expected) and got[0] == k
