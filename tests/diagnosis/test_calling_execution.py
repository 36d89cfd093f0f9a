"""`DiagIndex.calling_execution`: the call of a tf.function a trace ran in, by definition.

With the executions in wall-time order (the usual case, and every merged run) the call is
found by a binary search of the graph's call numbers; out of order, by the calls' wall
times. Both must give what the definition says: the first call of that graph at or after
the trace's wall time (the last call when none is), and None when the first execution at or
after it calls something else (the trace ran inside another function's call).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dumper.writer import LogdirWriter
from reader import open_logdir
from reader.diagnosis.index import diag_index

HEALTH = [[1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4]]


def _run(d: Path, walls: list[tuple[str, float]], traces: list[float]) -> None:
    """Eager executions (op type "f" calls graph "g", "h" calls "k", "Add" none) at the
    given times, in that file order; traces of g's op at `traces`."""
    with LogdirWriter(d, run_id="r", hostname="h") as w:
        w.add_graph("g", "f")
        w.add_op("g", "Mul", "mul", [])
        w.add_graph("k", "h")
        for op, t in walls:
            w.add_execution(op, "FULL_HEALTH", HEALTH, graph_id={"f": "g", "h": "k"}.get(op, ""),
                            output_tensor_ids=[1], wall_time=t)
        for t in traces:
            w.add_graph_trace("g", "mul", 0, "FULL_HEALTH", HEALTH[0], wall_time=t)


def _expected(walls: list[tuple[str, float]], wall: float) -> int | None:
    """The definition, over the executions in file order."""
    times = np.array([t for _, t in walls])
    calls = [i for i, (op, _) in enumerate(walls) if op == "f"]
    if not calls:
        return None
    first = int(np.searchsorted(times, wall, "left")) if bool(np.all(np.diff(times) >= 0)) \
        else None
    if first is not None and first < len(walls) and walls[first][0] != "f":
        return None
    later = [i for i in calls if walls[i][1] >= wall]
    return later[0] if later else calls[-1]


CASES = {
    "in order": [("f", 1.0), ("Add", 1.5), ("f", 2.0), ("h", 3.0), ("f", 3.0), ("f", 5.0),
                 ("Add", 6.0), ("f", 7.0)],
    "ties": [("f", 1.0), ("f", 1.0), ("Add", 2.0), ("f", 2.0), ("f", 2.0), ("f", 4.0)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_calling_execution_follows_its_definition(tmp_path: Path, case: str) -> None:
    walls = CASES[case]
    traces = [0.5, 1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 4.5, 5.0, 6.5, 7.0, 9.0]
    _run(tmp_path, walls, traces)
    logdir = open_logdir(str(tmp_path))
    idx = diag_index(logdir)
    got = [idx.calling_execution("g", t) for t in traces]
    assert got == [_expected(walls, t) for t in traces]
    assert any(g is not None for g in got) and None in got  # both answers are exercised


def test_calling_execution_out_of_order(tmp_path: Path) -> None:
    """An execution whose wall time goes back (another thread's clock): the executions are
    not in order, so the calls' own times decide — the same calls as the definition."""
    walls = [("f", 1.0), ("Add", 0.5), ("f", 3.0), ("f", 5.0)]
    traces = [0.5, 1.0, 2.0, 4.0, 5.0, 6.0]
    _run(tmp_path, walls, traces)
    logdir = open_logdir(str(tmp_path))
    idx = diag_index(logdir)
    assert not idx.calls.in_time_order()
    assert [idx.calling_execution("g", t) for t in traces] == [0, 0, 2, 3, 3, 3]
