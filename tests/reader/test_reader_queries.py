"""The reader's typed query API against the records TensorFlow wrote.

`output_row` is the one mapping from (eager execution, output slot) to a row of the output
table; here it is checked against each execution's own record, re-read from disk: the row's
tensor id is the record's `output_tensor_ids[slot]`. `trace(i)` and `execution(i)` are
checked against the full records the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from reader import EAGER, GRAPH, open_logdir


@pytest.mark.parametrize("kind", ["mixed", "keras"])
def test_output_row_is_the_records_slot(make_tf_logdir: Callable[..., str], kind: str) -> None:
    logdir = open_logdir(make_tf_logdir(kind, "FULL_HEALTH"))
    assert len(logdir.executions) > 0
    multi = 0
    for i in range(len(logdir.executions)):
        record = logdir.read_execution(i)
        n = int(logdir.executions.n_outputs[i])
        assert n >= len(record.output_tensor_ids)
        multi += n > 1
        for slot in range(n):
            row = logdir.output_row(i, slot)
            assert row is not None
            assert int(logdir.outputs.execution[row]) == i
            assert int(logdir.outputs.slot[row]) == slot
            if slot < len(record.output_tensor_ids):
                assert int(logdir.outputs.tensor_id[row]) == record.output_tensor_ids[slot]
        assert list(logdir.output_rows(i)) == [logdir.output_row(i, s) for s in range(n)]
        assert logdir.output_row(i, n) is None and logdir.output_row(i, -1) is None
    assert logdir.output_row(len(logdir.executions), 0) is None
    if kind == "keras":
        assert multi > 0  # the training function returns several tensors


def test_typed_rows_match_full_records(make_tf_logdir: Callable[..., str]) -> None:
    logdir = open_logdir(make_tf_logdir("mixed", "FULL_HEALTH"))
    assert len(logdir.traces) > 0 and len(logdir.executions) > 0
    for i in range(len(logdir.traces)):
        row, full = logdir.trace(i), logdir.read_trace(i)
        assert (row.graph_id, row.op_name, row.op_type, row.slot, row.mode) == (
            full.graph_id, full.op_name, full.op_type, full.output_slot, full.mode)
        assert row.wall_time == full.wall_time and row.tensor_name == full.tensor_name
        assert logdir.tensor_mode(GRAPH, i) == full.mode
        assert logdir.tensor_health(GRAPH, i, row.slot) == row.health
    for i in range(len(logdir.executions)):
        ex, rec = logdir.execution(i), logdir.read_execution(i)
        assert (ex.op_type, ex.graph_id, ex.mode, ex.num_outputs, ex.wall_time) == (
            rec.op_type, rec.graph_id, rec.mode, rec.num_outputs, rec.wall_time)
        assert logdir.tensor_mode(EAGER, i) == rec.mode
    bad_rows = [i for i in range(len(logdir.traces)) if logdir.trace(i).health.bad == 1]
    assert bad_rows  # the program makes NaN and −∞
    assert all(logdir.trace(i).health.nan + logdir.trace(i).health.neg_inf
               + logdir.trace(i).health.pos_inf > 0 for i in bad_rows)
