"""Incidents name the origin of the step where the NaN/∞ begins, and the same one whatever
form the training took.

The runs are tests/programs/step_program.py's (tests/support/step_runs.py): batch BAD is 1e20,
every other batch small, every batch finite (1e20 < float32's 3.4e38). By construction two
ops overflow in that step, independently of each other (x = 1e20, w = 0.5, y = Σx; fit's
Dense starts from random weights of that order):
- the loss' Square: (pred − y)² = (1.5e20 − 3e20)² = 2.25e40 → +∞;
- the weight gradient's MatMul: xᵀ · dpred, dpred = 2(pred − y)/4 = −7.5e19 (finite), summed
  over 4 rows: 4 · 1e20 · (−7.5e19) = −3e40 → −∞.
Everything after them (the weights, the next steps) is downstream. Both are the same cause,
one batch's values past float32's range (issue 31: a user with one bad batch expects one
origin, not one per op that overflowed; `reader.diagnosis.overflows`). So each form (eager,
tf.function, fit, Session.run) must give exactly one incident, in the bad step: Square, with
the gradient MatMul named as an overflow of the same step — and nothing that blames the data.
(Until issue 31's third round they were two incidents, Square then the gradient MatMul.)
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from support.step_runs import RUNS, step_logdir

from reader import EAGER, open_logdir
from reader.diagnosis import diagnose
from reader.diagnosis.incidents import find_incidents
from reader.diagnosis.steps import training_steps

FORMS = ("eager", "function", "fit", "session")


def _report(path: str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    import json

    from tfdbg_tui.commands import report

    report.main([path, "--json", *args])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("limit", ["1", "10", "40"])
def test_each_form_finds_the_two_overflows(tmp_path_factory: pytest.TempPathFactory,
                                           capsys: pytest.CaptureFixture[str],
                                           form: str, limit: str) -> None:
    bad, _ = RUNS[form]
    rep = _report(step_logdir(tmp_path_factory, form), capsys, "--limit", limit)
    incidents = rep["incidents"]
    got = [(i["origin"]["op_type"], i["origin"]["cause"] == "gradient", i["step"])
           for i in incidents]
    assert got == [("Square", False, bad)], got
    also = [(o["op_type"], o["op_name"] or "") for o in incidents[0]["overflows"]]
    assert [t for t, _ in also] == ["MatMul"], also  # xᵀ·dpred, the weight gradient
    assert form in ("eager", "session") or "gradient" in also[0][1], also
    assert "also overflowed" in incidents[0]["explanation"]
    assert not any(i["origin"]["data"] for i in incidents)  # every batch is finite
    assert sum(i["alerts"] for i in incidents) == rep["alerts"]["total"]


def test_an_unrecorded_eager_identity_is_inferred_and_said(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Eager apply_gradients passes each gradient through an Identity (tf.distribute's
    all-reduce is a tf.custom_gradient, whose eager results go through one), and TensorFlow
    never records an eager Identity: the update's Mul reads a tensor no recorded op made.
    Its NaN/∞ is the gradient MatMul's; the diagnosis says so as an inference."""
    bad, _ = RUNS["eager"]
    logdir = open_logdir(step_logdir(tmp_path_factory, "eager"))
    steps = training_steps(logdir)
    alerts = logdir.alerts()
    at = steps.steps_of(alerts.kind, alerts.index)
    mul = next(k for k in range(len(alerts)) if at[k] == bad and int(alerts.kind[k]) == EAGER
               and logdir.op_type_of_execution(int(alerts.index[k])) == "Mul")
    e = int(alerts.index[mul])
    tids = logdir.read_execution(e).input_tensor_ids
    made = {int(t) for i in range(e) for t in (logdir.read_execution(i).output_tensor_ids or ())}
    assert [int(t) in made for t in tids].count(False) == 1  # the premise: one unrecorded input
    d = diagnose(logdir, EAGER, e, int(alerts.slot[mul]))
    assert (d.origin_op_type, d.cause) == ("MatMul", "gradient")
    assert d.origin_index < e
    text = d.explanation
    assert "not recorded" in text and "Identity" in text and "inferred" in text, text


def test_fit_step_loss_alert_is_the_loss_not_data(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keras 3's fit returns each step's logs from its tf.function in an Optional and unpacks
    them eagerly (OptionalGetValue): that output is the step's loss. TensorFlow's own reader
    reads the same non-finite health for it (a true alert, not a reader slip on a multi-output
    op), and its NaN/∞ comes from the loss' Square inside the function, not from the data."""
    from tensorflow.python.debug.lib import debug_events_reader as tf_reader

    bad, _ = RUNS["fit"]
    path = step_logdir(tmp_path_factory, "fit")
    logdir = open_logdir(path)
    alerts = logdir.alerts()
    found = [(int(alerts.index[k]), int(alerts.slot[k])) for k in range(len(alerts))
             if int(alerts.kind[k]) == EAGER
             and logdir.op_type_of_execution(int(alerts.index[k])) == "OptionalGetValue"]
    assert found
    with tf_reader.DebugDataReader(path) as r:
        r.update()
        executions = r.executions()
        for e, slot in found:
            ex = r.read_execution(executions[e])
            assert ex.op_type == "OptionalGetValue"
            health = np.asarray(ex.debug_tensor_values[slot])  # FULL_HEALTH: counts at 4..7
            assert health[5:8].sum() > 0  # −∞, +∞, NaN: TensorFlow's reader sees it too
    steps = training_steps(logdir)
    for e, slot in found:
        d = diagnose(logdir, EAGER, e, slot)
        assert d.cause != "data" and "data carries it" not in d.explanation, d.explanation
        assert d.origin_kind != EAGER  # inside the step's function, not the unpacking
        if steps.step_of(EAGER, e) == bad:  # later steps' losses: from the NaN weights
            assert d.origin_op_type == "Square", (d.origin_op_type, d.explanation)
    assert bad in {steps.step_of(EAGER, e) for e, _ in found}


@pytest.mark.parametrize("form", FORMS)
def test_incidents_count_every_alert_once(tmp_path_factory: pytest.TempPathFactory,
                                          form: str) -> None:
    logdir = open_logdir(step_logdir(tmp_path_factory, form))
    found = find_incidents(logdir, training_steps(logdir))
    assert sum(i.alerts for i in found.items) == found.total == len(logdir.alerts())
    assert sorted(found.of_alert)[0] == 0


def test_fit_metric_reads_follow_the_write_inside_the_nested_step(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """Keras resets its metrics' variables eagerly at each epoch's start, then adds to them
    inside one_step_on_data, a function multi_step_on_iterator calls (the variables are its
    captures, lifted to the caller's Placeholders). An eager read of such a variable after
    the bad step holds what the step added, not what the reset wrote."""
    logdir = open_logdir(step_logdir(tmp_path_factory, "fit"))
    alerts = logdir.alerts()
    reads = [int(alerts.index[k]) for k in range(len(alerts)) if int(alerts.kind[k]) == EAGER
             and logdir.op_type_of_execution(int(alerts.index[k])) == "ReadVariableOp"]
    assert reads
    for e in reads:
        d = diagnose(logdir, EAGER, e)
        assert d.cause != "variable" and d.origin_kind != EAGER, (e, d.explanation)


def test_human_report_says_an_alert_joined_its_incident_by_inference(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """An alert counted with an incident through an inferred Identity says so where the
    report points to the incident instead of repeating its diagnosis."""
    from tfdbg_tui.commands import report

    report.main([step_logdir(tmp_path_factory, "eager"), "--limit", "10"])
    out = capsys.readouterr().out
    blocks = re.split(r"\n  (?=\d+\. )", out)  # one block per detailed alert
    mul = next(b for b in blocks if b.lstrip().split()[1:2] == ["Mul"])
    head = "incident 1 (above): Square — at another overflow of its step, MatMul"
    assert head in mul and "inferred" in mul, mul
    matmul = next(b for b in blocks if b.lstrip().split()[1:2] == ["MatMul"])
    assert head in matmul and "inferred" not in matmul, matmul


@pytest.mark.parametrize("form", ["function", "fit"])
def test_an_overflow_called_divergence_names_the_bad_batch_too(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    """The traced forms' Square was 'the training diverged: each step made the weights
    larger' — of one bad batch, with weights that had barely moved. A health mode records no
    magnitudes, so the story must leave room for the batch it cannot see."""
    rep = _report(step_logdir(tmp_path_factory, form), capsys)
    square = rep["incidents"][0]
    assert square["origin"]["op_type"] == "Square"
    text = square["explanation"]
    if square["origin"]["cause"] == "divergence":
        assert "one bad batch" in text and "cannot tell the two apart" in text, text
