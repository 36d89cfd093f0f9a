"""A variable read in one trace of a tf.function, written last by another trace's update.

Why: TensorFlow traces a tf.function once per input shape, so a step fed batches of two
sizes runs two graphs, each with its own read of the weights and its own update. A read's
value was taken to come from its own graph's update (the latest record of that update's
value), though the last write was the other graph's: the held-out NaN corpus'
gnn_max_isolated_fn (tests/programs/heldout_nan4) then said of step 7's read "the value it
wrote held no NaN/∞" — step 5's write, in the same graph — and made a second, "variable"
incident of what step 6's update had written.

The program here is not that one (tests/programs/retraced_writes/ragged_batches_fn.py:
batches of 8 and 5 rows in turn, an ∞ in step 3's data, plain SGD on a linear model); its
numpy replay below shows the weights finite after steps 0-2 and non-finite after step 3, so
every later NaN/∞ is step 3's one incident.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program
from support.report_run import report_json

pytestmark = pytest.mark.tf

PROGRAM = PROGRAMS / "retraced_writes" / "ragged_batches_fn.py"
sys.path.insert(0, str(PROGRAM.parent))
import ragged_batches_fn as prog  # noqa: E402


def test_the_numpy_replay_goes_bad_in_step_3_only_through_its_data() -> None:
    w = np.zeros((3, 1), np.float32)
    finite_after = []
    with np.errstate(all="ignore"):
        for x, y in prog.batches():
            r = x @ w - y
            grad = (2.0 / r.size) * x.T @ r
            w = w - np.float32(0.1) * grad
            finite_after.append(bool(np.isfinite(w).all()))
    assert finite_after == [True, True, True, False, False, False]
    assert [len(x) for x, _ in prog.batches()] == [8, 5, 8, 5, 8, 5]  # two shapes: two traces


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict:
    logdir = recorded_program(tmp_path_factory, "retraced-writes-ragged", PROGRAM)
    got = report_json(logdir, "--limit", "1000")
    assert got.status == 1 and got.report is not None, got.error
    return got.report


def test_two_traces_were_recorded(report: dict) -> None:
    assert report["counts"]["graphs"] >= 2, report["counts"]


def test_one_incident_at_the_step_the_data_went_bad(report: dict) -> None:
    incidents = report["incidents"]
    assert len(incidents) == 1, [(i["step"], i["alerts"]) for i in incidents]
    assert incidents[0]["step"] == prog.BAD_STEP
    assert incidents[0]["alerts"] == report["alerts"]["total"]


def test_no_read_of_the_weights_is_said_written_finite(report: dict) -> None:
    reads = [a for a in report["first_alerts"] if a["op_type"] == "ReadVariableOp"]
    assert reads, "no alert of a read of the weights"
    for a in reads:
        text = a["diagnosis"]["explanation"]
        assert "held no NaN/∞" not in text, text
