"""The walk remembers each tensor's inputs while the logdir does not grow (`Walker.inputs`,
`DiagIndex.input_memo`), but never inputs whose names a logdir made huge: names come from
the file, and a remembered 100 MB op name is 100 MB held per tensor for the logdir's life
(hostile corpus: op_name_100mb). Here a NaN Relu reads an op whose name is 64 KiB: its
diagnosis is made, and nothing holding that name is kept; the same logdir with a short name
keeps the Relu's inputs, so the check can fail.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hostile.raw import append, base, op_creation, trace, vector
from support.tui import health

from reader import GRAPH, open_logdir
from reader.diagnosis import diagnose
from reader.diagnosis.index import diag_index


def _logdir(d: Path, feeder: str) -> str:
    b = base(d, bad=False)
    append(b.file("graphs"), op_creation("g-train-step", "Exp", feeder),
           op_creation("g-train-step", "Relu", "bad_relu", inputs=(f"{feeder}:0",)))
    append(b.file("graph_execution_traces"), trace(feeder, vector(health(3, 1, pos=3))),
           trace("bad_relu", vector(health(3, 1, nan=1))))
    return str(d)


@pytest.mark.parametrize(("length", "kept"), [(12, True), (64 << 10, False)])
def test_huge_input_names_are_not_remembered(tmp_path: Path, length: int, kept: bool) -> None:
    feeder = "f" * length
    L = open_logdir(_logdir(tmp_path, feeder))
    row = len(L.traces) - 1
    assert L.op_name_of_trace(row) == "bad_relu"
    d = diagnose(L, GRAPH, row)
    assert d is not None
    memo = diag_index(L).input_memo
    holds = [k for k, (links, _) in memo.items() if any(feeder in lk.name for lk in links)]
    assert bool(holds) == kept, (length, len(memo))
