"""The NaN journey as a newcomer meets it (issue 31): one bad batch fed at a chosen step
(tests/programs/batch_program.py), in the three forms a Keras user trains in. `report` and
`report --json` must name that step, say one incident (one origin: the batch's NaN, or the
0/0 it causes), and count every alert with it.

What failed before, by form:
- a NaN batch in eager or tf.function form: two incidents, one per op that read the batch
  (the standardisation's two Means), both "the data carries it";
- a NaN batch given to fit as numpy arrays: "first NaN/∞ at step 0" — Keras maps a function
  over the whole arrays in its input pipeline, whose traces fell in the first step by time.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

pytestmark = pytest.mark.tf

BAD = {"eager": 2, "function": 3, "fit": 4}  # differ per form: no fixed number passes
CASES = [(form, kind) for kind in ("nan", "zero") for form in BAD]


def _logdir(tmp_path_factory: pytest.TempPathFactory, form: str, kind: str) -> str:
    pytest.importorskip("tensorflow")

    return recorded_program(tmp_path_factory, f"batch-{form}-{kind}",
                            PROGRAMS / "batch_program.py", form, kind, BAD[form])


@pytest.mark.parametrize(("form", "kind"), CASES)
def test_the_bad_batch_is_one_incident_at_its_step(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str, kind: str) -> None:
    from tfdbg_tui.commands import report

    path = _logdir(tmp_path_factory, form, kind)
    bad = BAD[form]
    report.main([path, "--json"])
    rep: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert rep["steps"]["first_alert_step"] == bad, rep["steps"]
    incidents = rep["incidents"]
    got = [(i["origin"]["op_type"], i["origin"]["cause"], i["step"]) for i in incidents]
    assert len(incidents) == 1, got
    origin = incidents[0]["origin"]
    assert incidents[0]["step"] == bad
    if kind == "nan":
        assert origin["cause"] == "data", got
    else:
        assert (origin["op_type"], origin["cause"]) == ("RealDiv", "forward"), got
        assert "/ std" in origin["fix_frame"]["code"]
    assert sum(i["alerts"] for i in incidents) == rep["alerts"]["total"] > 0
    report.main([path])
    text = capsys.readouterr().out
    assert f"first NaN/∞ at step {bad} of " in text and "· 1 incident" in text, text[:1500]


@pytest.mark.parametrize(("form", "kind"), CASES)
def test_the_app_heads_with_the_same_step(tmp_path_factory: pytest.TempPathFactory,
                                          form: str, kind: str) -> None:
    """The TUI's header line says what `report` says."""
    from reader import open_logdir
    from tfdbg_tui.core.journey import compute_journey

    logdir = open_logdir(_logdir(tmp_path_factory, form, kind))
    journey = compute_journey(logdir, logdir.alerts())
    assert journey.headline() == f"first NaN at step {BAD[form]} of 6 (steps 0–5)"
    assert [i.step for i in journey.incidents.items] == [BAD[form]]
