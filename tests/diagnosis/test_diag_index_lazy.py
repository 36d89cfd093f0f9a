"""The diagnosis' lookup tables are built when a walk first needs them (issue 32: memory).

A run of 400,000 graph traces whose first alert is an eager Sqrt of a negative Sub: its
diagnosis walks eager producers only, so the traces are never grouped by tensor (4 bytes
a trace, a quarter of a second for 10M); diagnosing a graph alert then does group them, and
both say what they said when every table was built up front.
"""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import numpy as np

from dumper.writer import LogdirWriter
from reader import EAGER, GRAPH, open_logdir
from reader.diagnosis import diagnose
from reader.diagnosis.index import diag_index

N = 400_000


def _run(d: Path) -> None:
    with LogdirWriter(d, run_id="r", hostname="h") as w:
        f = w.add_source_file("/job/train.py", ["z = x - 10.0", "w = tf.math.sqrt(z)",
                                                "y = tf.math.log(w)"])
        sub, sqrt, log = (w.add_stack_frame(f, k + 1, "step") for k in range(3))
        w.add_execution("Sub", "FULL_HEALTH", [[1, 1, 1, 1, 4, 0, 0, 0, 4, 0, 0]],
                        output_tensor_ids=[1], stack_frame_ids=[sub], wall_time=100.0)
        w.add_execution("Sqrt", "FULL_HEALTH", [[1, 1, 1, 1, 4, 0, 0, 4, 0, 0, 0]],
                        input_tensor_ids=[1], output_tensor_ids=[2], stack_frame_ids=[sqrt],
                        wall_time=100.5)
        w.add_graph("g", "forward")
        w.add_op("g", "Log", "log", [], stack_frame_ids=[log])
        v = np.zeros((N, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[-1, 7], v[-1, 10] = 8, 0  # the last one NaN
        w.add_graph_traces("g", "log", 0, "FULL_HEALTH", v,
                           wall_times=101.0 + np.arange(N) * 1e-4)


def test_an_eager_walk_builds_no_grouping_of_the_traces(tmp_path: Path) -> None:
    _run(tmp_path)
    logdir = open_logdir(str(tmp_path))
    alerts = logdir.alerts()
    assert len(alerts) == 2 and int(alerts.kind[0]) == EAGER
    tracemalloc.start()
    try:
        eager = diagnose(logdir, EAGER, int(alerts.index[0]), 0)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert eager.origin_op_type == "Sqrt" and "negative" in eager.explanation
    assert held < N  # not 4 bytes a trace
    graph = diagnose(logdir, GRAPH, int(alerts.index[1]), 0)
    assert graph.origin_kind == EAGER or graph.origin_op_type in ("Log", "Sqrt")

    built = open_logdir(str(tmp_path))
    diag_index(built).warm()  # every table up front, as before
    assert diagnose(built, EAGER, int(alerts.index[0]), 0) == eager
    assert diagnose(built, GRAPH, int(alerts.index[1]), 0) == graph


def test_a_tensors_rows_are_the_same_picked_or_grouped(tmp_path: Path) -> None:
    """`TensorRows` picks out the rows of the first tensors asked about one by one, and
    groups every row once more are asked about: both must give every row of the tensor,
    in file order, as the kinds of the rows say (two graphs sharing op names, two slots,
    traces of 30 tensors interleaved in time)."""
    from reader.diagnosis.tensor_rows import EAGER_AFTER, TensorRows

    rng = np.random.default_rng(7)
    tensors = [(g, f"op{k}", k % 2) for g in ("g1", "g2") for k in range(15)]
    with LogdirWriter(tmp_path, run_id="r", hostname="h") as w:
        for g in ("g1", "g2"):
            w.add_graph(g, "f")
            for k in range(15):
                w.add_op(g, "Exp", f"op{k}", [], num_outputs=2)
        ok = [1, 1, 1, 1, 8, 0, 0, 0, 0, 0, 8]
        for j, t in enumerate(rng.integers(0, len(tensors), 4000)):  # interleaved
            g, op, slot = tensors[int(t)]
            w.add_graph_trace(g, op, slot, "FULL_HEALTH", ok, wall_time=float(j))
    logdir = open_logdir(str(tmp_path))
    traces = logdir.traces
    kinds = traces.kinds
    assert kinds is not None
    kind = np.asarray(traces.col("kind"))
    field = {f: np.asarray(kinds.col(f))[kind] for f in ("graph_id", "op_name", "slot")}
    keys = sorted({(int(a), int(b), int(c)) for a, b, c in zip(*field.values(), strict=True)})
    assert len(keys) == 30 > EAGER_AFTER
    expected = {k: np.flatnonzero((field["graph_id"] == k[0]) & (field["op_name"] == k[1])
                                  & (field["slot"] == k[2])) for k in keys}
    assert not all(np.array_equal(r, np.arange(len(r)) + r[0]) for r in expected.values())
    picked, grouped = TensorRows(), TensorRows()
    picked.build(traces)
    grouped.build(traces)
    for key in keys[-EAGER_AFTER:] + keys[:-EAGER_AFTER]:  # the grouping from the 25th on
        grouped.rows(*key)
    for key in keys:  # the first EAGER_AFTER picked, the rest grouped
        assert np.array_equal(picked.rows(*key), expected[key]), key
        assert np.array_equal(grouped.rows(*key), expected[key]), key
    assert len(picked.rows(10**6, 0, 0)) == 0
