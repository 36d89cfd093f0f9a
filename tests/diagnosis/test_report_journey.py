"""`report` on the NaN journey: the training step of every alert, incidents, the per-step
strip, no frame of `tfdbg-tui run` itself, and `--values` saying when there are none.

The runs are tests/programs/step_program.py's: one bad batch fed at a chosen step, so the
step every report must name is known by construction (tests/support/step_runs.py).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.paths import tf_env
from support.shared import build_once, shared_root
from support.step_runs import RUNS, step_logdir

from reader import open_logdir
from reader.index.frames import wrapper_frames
from tfdbg_tui.commands import report

FORMS = ("eager", "function", "fit")


def run_json(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    report.main([*args, "--json"])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("form", FORMS)
def test_json_gives_the_step_of_every_first_alert(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    bad, n = RUNS[form]
    rep = run_json([step_logdir(tmp_path_factory, form), "--limit", "40"], capsys)
    first = rep["first_alerts"]
    assert first and all("step" in e for e in first)
    assert first[0]["step"] == bad
    # alerts are in time order and a step comes after the one before: steps never go back
    steps = [e["step"] for e in first]
    assert all(s is not None and bad <= s < n for s in steps)
    assert steps == sorted(steps)
    assert rep["steps"]["count"] == n
    assert rep["steps"]["first_alert_step"] == bad
    per = rep["steps"]["per_step"]
    assert [p["step"] for p in per] == list(range(n))
    assert all(p["alerts"] == 0 for p in per[:bad]) and per[bad]["alerts"] > 0
    outside = rep["steps"]["alerts_outside_steps"]
    assert sum(p["alerts"] for p in per) + outside == rep["alerts"]["total"]
    assert outside < per[bad]["alerts"]  # a few after the last step (fit's end-of-epoch ops)
    if form == "fit":
        assert first[0]["step_form"] == f"fit epoch {bad // 4}, batch {bad % 4}"
    if form == "eager":  # the user's function, called once a step (not "eager train_step")
        assert first[0]["step_form"] == rep["steps"]["first_alert_form"] \
            == "eager train_step call"


@pytest.mark.parametrize("form", FORMS)
def test_incidents_add_up_to_the_alert_total(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    bad, _ = RUNS[form]
    rep = run_json([step_logdir(tmp_path_factory, form)], capsys)
    incidents = rep["incidents"]
    assert incidents
    assert sum(i["alerts"] for i in incidents) == rep["alerts"]["total"]
    assert incidents[0]["first_alert"] == 0 and incidents[0]["step"] == bad
    firsts = [i["first_alert"] for i in incidents]
    assert firsts == sorted(firsts) and len(set(firsts)) == len(firsts)
    for inc in incidents:
        assert inc["origin"]["op_type"] and inc["diagnosed"] >= 1
        assert sum(inc["op_types"].values()) == inc["alerts"]
    # each diagnosed first alert names its incident, and an incident's first alert is its own
    numbers = {i["number"] for i in incidents}
    assert {e["incident"] for e in rep["first_alerts"] if "incident" in e} <= numbers


def test_human_report_names_the_step_and_prints_each_origin_once(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    bad, n = RUNS["function"]
    assert report.main([step_logdir(tmp_path_factory, "function"), "--limit", "10"]) == 1
    out = capsys.readouterr().out
    # the steps count from 0, said once beside their number, as the strip below shows them
    assert (f"first NaN/∞ at step {bad} of {n} (steps 0–{n - 1}; tf.function train_step "
            "call)") in " ".join(out.split())
    assert "Incident 1 of" in out
    # the strip: one column per step (a short run shows them all), the bad one counted
    step_line = next(line for line in out.splitlines() if line.strip().startswith("step "))
    assert step_line.split()[1:] == [str(s) for s in range(n)]
    # one why-block per incident, not one per alert
    incidents = out.count("Incident ")
    assert out.count("why: ") == incidents < 10


def test_no_training_steps_gives_null_steps(make_tf_logdir,  # type: ignore[no-untyped-def]
                                            capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_json([make_tf_logdir("eager")], capsys)
    assert rep["first_alerts"]
    assert all(e["step"] is None for e in rep["first_alerts"])
    assert rep["steps"]["count"] == 0 and rep["steps"]["per_step"] == []
    assert sum(i["alerts"] for i in rep["incidents"]) == rep["alerts"]["total"]


def test_values_on_a_health_mode_says_there_are_none(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]) -> None:
    path = step_logdir(tmp_path_factory, "function")
    assert report.main([path, "--values", "--limit", "2"]) == 1
    assert "no values to show" in capsys.readouterr().out
    rep = run_json([path, "--values"], capsys)
    assert any("FULL_HEALTH" in note for note in rep["notes"])
    rep = run_json([path], capsys)  # without --values: nothing said
    assert rep["notes"] == []


PROGRAM = """\
import tensorflow as tf

print(tf.math.log(tf.constant([0.0, 2.0])).numpy())
"""


@pytest.fixture(scope="session")
def wrapped_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Recorded through the console script: `tfdbg-tui run -- python prog.py`."""
    pytest.importorskip("tensorflow")

    def build(d: Path) -> str:
        (d / "prog.py").write_text(PROGRAM)
        console = Path(sys.executable).with_name("tfdbg-tui")
        proc = subprocess.run(
            [str(console), "run", "--logdir", str(d / "logdir"), "--", "python", "prog.py"],
            cwd=d, env=tf_env(), capture_output=True, text=True, timeout=600)
        if proc.returncode != 0:
            pytest.fail(f"recording failed:\n{proc.stderr[-3000:]}")
        return str(d / "logdir")

    return build_once(shared_root(tmp_path_factory), "report-wrapped-prog", build)


def test_report_shows_no_frame_of_tfdbg_tui_itself(wrapped_logdir: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    logdir = open_logdir(wrapped_logdir)  # the recorded stack does hold the wrapper's frames
    alerts = logdir.alerts()
    recorded = logdir.alert_stack(int(alerts.kind[0]), int(alerts.index[0]))
    assert wrapper_frames(recorded) >= 3
    rep = run_json([wrapped_logdir], capsys)
    assert rep["first_alerts"]
    for entry in rep["first_alerts"]:
        files = [f["file"] for f in entry["stack"]]
        assert files and files[0].endswith("prog.py")  # outermost first: the user's program
        assert not [f for f in files if any(w in f for w in (
            "tfdbg_tui", "runpy", "bin/tfdbg-tui", "/dumper/", "dumping_callback"))], files


@pytest.mark.parametrize("form", FORMS)
def test_incidents_do_not_depend_on_limit(tmp_path_factory: pytest.TempPathFactory,
                                          capsys: pytest.CaptureFixture[str],
                                          form: str) -> None:
    """--limit says how many alerts to detail, not which origins exist: fit's gradient
    MatMul is the 12th alert of its bad step, eager's the 3rd."""
    path = step_logdir(tmp_path_factory, form)

    def shape(limit: int) -> list[tuple[Any, ...]]:
        incidents = run_json([path, "--limit", str(limit)], capsys)["incidents"]
        return [(i["first_alert"], i["alerts"], i["diagnosed"], i["origin"]["op_type"],
                 i["origin"]["index"]) for i in incidents]

    assert shape(1) == shape(10) == shape(40)


@pytest.mark.parametrize("form", FORMS)
def test_incident_op_types_count_each_alert_by_its_op(
        tmp_path_factory: pytest.TempPathFactory, form: str) -> None:
    """Each incident's op types are the op types of the alerts counted with it, looked up
    alert by alert here (the incidents count them per kind)."""
    from collections import Counter
    from itertools import pairwise

    from reader import GRAPH
    from reader.diagnosis.incidents import find_incidents
    from reader.diagnosis.steps import training_steps

    logdir = open_logdir(step_logdir(tmp_path_factory, form))
    found = find_incidents(logdir, training_steps(logdir))
    alerts = logdir.alerts()
    bounds = [*sorted(found.of_alert), len(alerts)]
    expected: dict[int, Counter[str]] = {}
    for a, b in pairwise(bounds):
        got = expected.setdefault(found.of_alert[a], Counter())
        for k in range(a, b):
            i = int(alerts.index[k])
            got[logdir.op_type_of_trace(i) if int(alerts.kind[k]) == GRAPH
                else logdir.op_type_of_execution(i)] += 1
    assert len(found.items) == len(expected)
    for inc in found.items:
        assert dict(inc.op_types) == dict(expected[inc.number])
    assert sum(len(c) for c in expected.values()) > len(expected)  # several op types


@pytest.mark.parametrize("kind", ["eager", "function"])
def test_no_training_steps_text_says_so_in_one_line(
        make_tf_logdir,  # type: ignore[no-untyped-def]
        capsys: pytest.CaptureFixture[str], kind: str) -> None:
    """Programs with no training loop (tf_program.py: eager ops; a tf.function `f` called
    three times with no gradient nor update): the text says no step was found, once, on one
    line, as `--json` gives `step: null` (issue 31, held-out check)."""
    path = make_tf_logdir(kind)
    rep = run_json([path], capsys)
    assert rep["steps"]["count"] == 0
    assert report.main([path]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("steps ")]
    assert len(lines) == 1, out
    assert lines[0].split(None, 1)[1] == ("none found (no Session.run, train_step, "
                                          "tf.function or fit step)"), lines
    assert "step 0" not in out and "first NaN/∞ at step" not in out


def test_text_report_names_a_tf_function_call_by_its_users_name(
        make_tf_logdir,  # type: ignore[no-untyped-def]
        capsys: pytest.CaptureFixture[str]) -> None:
    """The calls of tf_program.py's `f` are alerts of their own: the text names them `f`,
    not `__inference_f_<uid>`; `--json` keeps TensorFlow's full name."""
    path = make_tf_logdir("function")
    rep = run_json([path, "--limit", "20"], capsys)
    calls = [e for e in rep["first_alerts"] if e["kind"] != "graph"]
    assert calls and all(e["op_type"].startswith("__inference_f_") for e in calls)
    assert report.main([path, "--limit", "20"]) == 1
    out = capsys.readouterr().out
    assert "__inference" not in out, out
    assert "f  output 0  eager execution #" in out and "f×3" in out
