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
