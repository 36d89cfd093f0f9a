"""A forward op and its gradient going non-finite in the same step are one incident, as
PyTorch's anomaly mode tells it: the forward line is the bug, its backward op is where the same
bug shows again (tests/programs/grad_pair_program.py says why each case is so by
construction).

The expectations come from the program's text (the `# NAN <case>` lines) and its construction
(the bad batch's step per form), never from what the tool says:
- log(0), 1/0 and cosh(200): one incident each, origin the forward op (Log, RealDiv, Cosh)
  at its `# NAN` line, in the bad step, cause "forward", every alert counted with it, and its
  text says the gradient (Reciprocal, RealDiv, Sinh) is also non-finite;
- two forward origins on two lines reading the same input: two incidents, each forward op's
  gradient counted with its own forward op, not with the other one.
Each in the three forms a user trains in: an eager loop, a tf.function step, Keras fit.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import recorded_program

pytestmark = pytest.mark.tf

PROGRAM = PROGRAMS / "grad_pair_program.py"
# form → (bad step, steps): differing per form, so no test passes on one fixed number; fit
# runs 4 batches an epoch (step 5 = epoch 1, batch 1). The eager loop's bad step is not its
# last: the next steps' `x * w` read the non-finite weight through a value no recorded op made
# (TF 2.21 records no ReadVariableOp for it), and are counted with the bad step's incident
# through the weight's last write (reader.diagnosis.unrecorded_reads; tests/diagnosis/
# test_stale_weights.py is about that rule). For recip and two, the later steps' walk also
# crosses an ambiguous Keras gradient Identity (1/p's gradient for the constant 1.0 is as NaN
# and as big as w's, neither read by a recorded op), whose candidates walk back to one origin
# (reader.diagnosis.unrecorded).
RUNS = {"eager": (1, 3), "function": (2, 4), "fit": (5, 8)}
FORMS = tuple(RUNS)
# case → [(forward op type, its `# NAN` tag, the gradient op type its backward makes)]
CASES: dict[str, list[tuple[str, str, str]]] = {
    "log": [("Log", "log", "Reciprocal")],
    "recip": [("RealDiv", "recip", "RealDiv")],
    "cosh": [("Cosh", "cosh", "Sinh")],
    "two": [("Log", "two-log", "Reciprocal"), ("RealDiv", "two-recip", "RealDiv")],
}


def _line(tag: str) -> int:
    lines = PROGRAM.read_text().splitlines()
    found = [k + 1 for k, text in enumerate(lines) if text.rstrip().endswith(f"# NAN {tag}")]
    assert len(found) == 1, tag
    return found[0]


def _logdir(tmp_path_factory: pytest.TempPathFactory, form: str, case: str) -> str:
    pytest.importorskip("tensorflow")
    bad, steps = RUNS[form]

    return recorded_program(tmp_path_factory, f"grad-pair-{form}-{case}", PROGRAM, form, case,
                            bad, "--steps", steps)


def _report(path: str, capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    from tfdbg_tui.commands import report

    report.main([path, "--json", *args])
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


@pytest.mark.parametrize("case", tuple(CASES))
@pytest.mark.parametrize("form", FORMS)
def test_a_forward_op_and_its_gradient_are_one_incident(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str, case: str) -> None:
    bad, _ = RUNS[form]
    rep = _report(_logdir(tmp_path_factory, form, case), capsys)
    incidents = rep["incidents"]
    want = {(op, _line(tag)) for op, tag, _ in CASES[case]}
    got = {((i["origin"] or {}).get("op_type"), ((i["origin"] or {}).get("fix_frame") or {})
            .get("line")) for i in incidents}
    assert len(incidents) == len(want) and got == want, [
        ((i["origin"] or {}).get("op_type"), (i["origin"] or {}).get("cause"),
         ((i["origin"] or {}).get("fix_frame") or {}).get("line"), i["alerts"])
        for i in incidents]
    for inc in incidents:
        origin = inc["origin"]
        assert origin["cause"] == "forward", origin
        assert origin["fix_frame"]["file"].endswith("grad_pair_program.py"), origin
        assert inc["step"] == bad
        grad = next(g for op, _t, g in CASES[case] if op == origin["op_type"])
        text = inc["explanation"]
        assert re.search(rf"its gradients? \({grad}\b", text), text
        assert "also non-finite" in text, text
        backward = inc["backward"]
        assert backward and all(b["op_type"] == grad for b in backward), backward
    assert sum(i["alerts"] for i in incidents) == rep["alerts"]["total"]


@pytest.mark.parametrize("form", FORMS)
def test_the_human_report_and_the_alerts_summary_say_one_incident(
        tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str],
        form: str) -> None:
    """`report` prints the incident once, its gradient in its text; the TUI's Alerts summary
    (the journey's incidents line) counts one incident."""
    from reader import open_logdir
    from tfdbg_tui.commands import report
    from tfdbg_tui.core.journey import compute_journey

    path = _logdir(tmp_path_factory, form, "cosh")
    report.main([path])
    out = capsys.readouterr().out
    assert "1 incident (by origin)" in out, out
    assert len(re.findall(r"^Incident \d+ of", out, re.M)) == 1, out
    assert "its gradient (Sinh" in out and "also non-finite" in out, out
    logdir = open_logdir(path)
    journey = compute_journey(logdir, logdir.alerts())
    line = journey.incidents_line()  # the origin by name (a graph op's is its op name)
    assert re.match(rf"1 incident: (\S+/)?Cosh \(step {RUNS[form][0]}, ", line), line


def test_the_tuis_alerts_pane_shows_one_incident(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    """In the app: the Alerts summary counts one incident and the rows have one incident
    header, the forward op's, whose words name its gradient."""
    from support.tui import settle, sync
    from textual.widgets import Static

    from reader import DebugLogdir
    from tfdbg_tui.ui.app import TfdbgApp

    path = _logdir(tmp_path_factory, "function", "log")

    @sync
    async def run() -> None:
        app = TfdbgApp(DebugLogdir(path), follow=False)
        async with app.run_test(size=(160, 45)) as pilot:
            await settle(app, pilot)
            s = app.main
            assert s is not None
            summary = str(s.query_one("#alerts-summary", Static).visual)
            assert summary.startswith("1 incident · "), summary
            alerts = s.alerts
            n = len(alerts.alerts)
            vl = alerts.vlist
            headers = [vl.index_at(k) for k in range(vl.row_count) if vl.index_at(k) >= n]
            assert len(headers) == 1
            head = alerts.render_row(headers[0], 400).plain
            assert "Log" in head and f"{n} alerts downstream" in head, head
            assert "its gradient (Reciprocal" in head, head

    run()
