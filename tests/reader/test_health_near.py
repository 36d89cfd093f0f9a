"""`HealthTable.health(row)` reads the rows around `row` with it and remembers them (a pane
asks row by row): what it gives must be exactly what reading that one row gives, at every
row of real runs (graph traces and eager outputs, FULL_HEALTH and FULL_TENSOR, the first
and the last rows), and a patch of rows already there must not leave a remembered value
standing."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from reader import DebugLogdir
from reader.index.health import HEALTH_COLUMNS
from reader.index.schema import HealthRow, HealthTable


def _one_by_one(table: HealthTable, row: int) -> HealthRow:
    cols = table.health_columns(np.array([row], dtype=np.int64))
    return HealthRow(*(int(cols[c][0]) for c in HEALTH_COLUMNS))


@pytest.mark.parametrize(("kind", "mode"), [("mlp", "FULL_HEALTH"), ("keras", "FULL_TENSOR"),
                                            ("eager", "FULL_HEALTH")])
def test_every_row_as_if_read_alone(make_tf_logdir: Callable[..., str], kind: str,
                                    mode: str) -> None:
    logdir = DebugLogdir(make_tf_logdir(kind, mode))
    logdir.update()
    tables = [t for t in (logdir.traces, logdir.outputs) if len(t)]
    assert tables, "the run recorded no tensors"
    for table in tables:
        n = len(table)
        # from the end backwards, then forwards: blocks start on both sides of rows asked
        for row in [*range(n - 1, -1, -1), *range(n)]:
            assert table.health(row) == _one_by_one(table, row), (type(table).__name__, row)


def test_a_patched_row_is_read_again(reference_logdir: str) -> None:
    logdir = DebugLogdir(reference_logdir)
    logdir.update()
    t = logdir.traces
    row = len(t) // 2
    before = t.health(row)
    assert t.health(row + 1) == _one_by_one(t, row + 1)  # now remembered
    t.set("bad", np.array([row + 1]), 1 - max(0, before.bad))
    assert t.health(row + 1) == _one_by_one(t, row + 1)
    assert t.health(row + 1).bad == 1 - max(0, before.bad)
