"""A weight that went NaN at one training step and is read NaN by every step after it is one
bug: the step that wrote the NaN, not each later step that read it.

The programs (tests/programs/stale_weight_program.py) are eager loops over raw tf.Variables, as
a user writes a model without layers; the bad batch at step BAD makes log(0) = −∞ (its
`# NAN log` line) and a NaN gradient that the update (Keras' SGD, or a hand-written
assign_sub) writes into the weights; every later step reads them. TensorFlow 2.21 records no
ReadVariableOp for an eager `x * w` or `tf.square(w)`: the op reads a value no recorded op
made, and was an incident of its own ('inputs not recorded'). `tf.matmul(x, w)` and `w + b`
record their reads (the cases the walk already followed through the variable's write).

The expectations come from the construction alone, never from what the tool says: one
incident, its origin the Log at the `# NAN log` line in step BAD, and every alert — those of
the later steps too — counted with it; for the unrecorded reads the later steps' path says
that the read was not recorded. And when the weight's write is not recorded either (an update
computed in numpy), no more is claimed than the record shows: the later step stays an origin,
and says that what it read is not known.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

pytestmark = pytest.mark.tf

PROGRAM = PROGRAMS / "stale_weight_program.py"
# read form → (bad step, steps): differing per form, so that no test passes on one number
RUNS = {"mul": (1, 4), "square": (2, 4), "matmul": (1, 3), "add": (2, 5)}
UNRECORDED = {"mul", "square"}  # forms whose eager read TensorFlow does not record
UPDATES = ("keras", "assign")  # (and "numpy": its own test)


def _line(tag: str) -> int:
    lines = PROGRAM.read_text().splitlines()
    found = [k + 1 for k, text in enumerate(lines) if text.rstrip().endswith(f"# {tag}")]
    assert len(found) == 1, tag
    return found[0]


def _logdir(tmp_path_factory: pytest.TempPathFactory, read: str, update: str) -> str:
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[read]

    return recorded_program(tmp_path_factory, f"stale-weight-{read}-{update}", PROGRAM, read,
                            update, bad, "--steps", steps)


def _report(path: str, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    from tfdbg_tui.commands import report

    report.main([path, "--json", "--limit", "1000"])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("update", UPDATES)
@pytest.mark.parametrize("read", tuple(RUNS))
def test_a_weight_read_nan_after_the_bad_step_is_one_incident(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        read: str, update: str) -> None:
    bad, steps = RUNS[read]
    rep = _report(_logdir(tmp_path_factory, read, update), capsys)
    total = rep["alerts"]["total"]
    per_step = {s["step"]: s["alerts"] for s in rep["steps"]["per_step"]}
    later = sum(n for s, n in per_step.items() if s > bad)
    # the construction: nothing before the bad step, alerts in it and in every step after
    assert all(per_step[s] == 0 for s in range(bad)), per_step
    assert per_step[bad] > 0 and all(per_step[s] > 0 for s in range(bad + 1, steps)), per_step
    incidents = rep["incidents"]
    assert len(incidents) == 1, [
        ((i["origin"] or {}).get("op_type"), (i["origin"] or {}).get("cause"),
         ((i["origin"] or {}).get("fix_frame") or {}).get("line"), i["step"], i["alerts"])
        for i in incidents]
    inc = incidents[0]
    origin = inc["origin"]
    assert origin["op_type"] == "Log", origin
    assert origin["fix_frame"]["file"].endswith("stale_weight_program.py"), origin
    assert origin["fix_frame"]["line"] == _line("NAN log"), origin
    assert inc["step"] == bad
    assert inc["alerts"] == total and later > 0
    # the later steps' first alert: walked back to the bad step through the weight's write
    first_later = next(a for a in rep["first_alerts"] if a["step"] == bad + 1)
    assert first_later["incident"] == inc["number"], first_later
    path = first_later["diagnosis"]["path"]
    if read in UNRECORDED:
        assert any("not recorded" in p and "AssignSubVariableOp" in p for p in path), path
        text = first_later["diagnosis"]["explanation"]
        assert "inferred" in text and "ReadVariableOp" in text, text
    else:  # a recorded read: followed through the write as recorded, nothing inferred
        assert first_later["op_type"] == "ReadVariableOp", first_later
        assert len(path) > 1 and not any("not recorded" in p for p in path[:2]), path


def test_the_human_report_says_the_later_steps_reached_the_incident_by_inference(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """`report` prints one incident and says of a later step's alert that it was reached
    through a tensor TensorFlow did not record."""
    from tfdbg_tui.commands import report

    report.main([_logdir(tmp_path_factory, "mul", "assign"), "--limit", "40"])
    out = " ".join(capsys.readouterr().out.split())  # (lines wrapped to the width)
    assert "1 incident (by origin)" in out, out
    assert "reached through a tensor TensorFlow did not record" in out, out


def test_a_weight_written_from_numpy_is_not_claimed(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """An update computed in numpy writes a value no recorded op made: what the weight held is
    not in the record, so the next step's `x * w` stays an origin of its own (the data cannot
    tie it to the bad step), and its explanation says that what it read is not known, naming
    the write's line (`# WRITE numpy`)."""
    bad, _ = RUNS["mul"]
    rep = _report(_logdir(tmp_path_factory, "mul", "numpy"), capsys)
    got = [((i["origin"] or {}).get("op_type"),
            ((i["origin"] or {}).get("fix_frame") or {}).get("line"), i["step"])
           for i in rep["incidents"]]
    assert got == [("Log", _line("NAN log"), bad), ("Mul", _line("READ mul"), bad + 1)], got
    text = rep["incidents"][1]["explanation"]
    assert f"stale_weight_program.py:{_line('WRITE numpy')}" in text, text
    assert "not known" in text and "taken to have read" not in text, text
    assert sum(i["alerts"] for i in rep["incidents"]) == rep["alerts"]["total"]


@pytest.mark.parametrize("update", ("function", "fnkeras"))
def test_a_weight_written_in_a_tf_function_is_followed_as_an_eager_write(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        update: str) -> None:
    """The update inside a tf.function (a hand-written assign_sub, or Keras' SGD), the
    forward eager: the later step's `x * w` read what that call wrote. It is one incident
    with the bad step's Log, as when the write is eager, its path naming the write in the
    function. Before, the writes of a call were not searched: 'function' was an incident of
    its own at the later step, whose explanation named the variables' first assignments as
    their last writes (and said what they held was not known); and no step was found."""
    rep = _report(_logdir(tmp_path_factory, "mul", update), capsys)
    bad, steps = RUNS["mul"]
    # the steps: eager ones, each ended by its call of the compiled update (found before
    # only when the update ran eagerly: this run had no steps); every alert in one
    per_step = {s["step"]: s["alerts"] for s in rep["steps"]["per_step"]}
    assert rep["steps"]["count"] == steps, rep["steps"]
    assert all(per_step[s] == 0 for s in range(bad)), per_step
    assert all(per_step[s] > 0 for s in range(bad, steps)), per_step
    assert sum(per_step.values()) == rep["alerts"]["total"], per_step
    incidents = rep["incidents"]
    assert [i["step"] for i in incidents] == [bad], incidents
    assert [((i["origin"] or {}).get("op_type"),
             ((i["origin"] or {}).get("fix_frame") or {}).get("line")) for i in incidents] \
        == [("Log", _line("NAN log"))], incidents
    assert incidents[0]["alerts"] == rep["alerts"]["total"]
    # the first NaN of the read's line is a later step's (the bad step's x * w is finite)
    later = next(a for a in rep["first_alerts"]
                 if (a["user_frame"] or {}).get("line") == _line("READ mul"))
    assert later["incident"] == incidents[0]["number"], later
    path = later["diagnosis"]["path"]
    assert any("not recorded" in p and "AssignSubVariableOp in apply_in_function" in p
               for p in path), path
    text = later["diagnosis"]["explanation"]
    assert "inferred" in text and "not known" not in text, text
    if update == "function":  # the write's own line (Keras' is inside the optimizer)
        assert f"stale_weight_program.py:{_line('WRITE function')}" in text, text


def test_an_alert_of_the_gradient_names_the_incident_it_is_printed_under(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """The bad step's log(0) and its gradient 1/x are one incident, headed by the Log. A
    held-out check of issue 31 read, under "Incident 1 of 1: Log", the gradient's alerts
    saying "incident 1 (above): Reciprocal" — another name than the heading's. Each now
    names the heading's origin, then where its own walk ended."""
    from tfdbg_tui.commands import report

    report.main([_logdir(tmp_path_factory, "mul", "assign"), "--limit", "40"])
    out = " ".join(capsys.readouterr().out.split())
    assert "Incident 1 of 1: Log " in out, out
    assert "incident 1 (above): Log — at its gradient Reciprocal" in out, out
    assert "incident 1 (above): Reciprocal" not in out, out


def test_a_kernel_fit_wrote_nan_and_an_eager_op_read_is_the_bad_batch(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    """tests/programs/fit_then_read_program.py: fit's compiled step writes the NaN of the
    bad batch (step 2) into the kernel, nested (one_step_on_data, called by
    multi_step_on_iterator); an eager `probe * kernel` after fit reads it unrecorded. One
    incident, at step 2; the read's path names the write in one_step_on_data; and the
    inferred hop's sentence follows the origin's explanation after a stop (a held-out check
    of issue 31 read "…drop such elements with dataset.filter) Mul:0 (eager #56) read …")."""
    import re

    program = PROGRAMS / "fit_then_read_program.py"

    rep = _report(recorded_program(tmp_path_factory, "fit-then-read", program, 2), capsys)
    incidents = rep["incidents"]
    assert [i["step"] for i in incidents] == [2], incidents
    assert incidents[0]["alerts"] == rep["alerts"]["total"]
    lines = program.read_text().splitlines()
    read_line = next(k + 1 for k, t in enumerate(lines) if t.rstrip().endswith("# READ kernel"))
    read = next(a for a in rep["first_alerts"] if a["kind"] == "eager"
                and (a["user_frame"] or {}).get("line") == read_line and a["op_type"] == "Mul")
    assert read["incident"] == incidents[0]["number"], read
    path = read["diagnosis"]["path"]
    assert any("not recorded" in p and "in one_step_on_data" in p for p in path), path
    text = read["diagnosis"]["explanation"]
    assert re.search(r"[.!?] Mul:0 \(eager #\d+\) read tensor", text), text
