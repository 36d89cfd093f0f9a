"""The zoo through the TUI (issue 9): launch → Enter → Source Code's highlighted line is the
line the program marks `# FIX`, in the program's own file, and the Alerts pane's diagnosis
line gives the program's cause in words. The alert selected at launch is the report's headline
(the first of `first_alerts`, the one the zoo test checks).

The programs, their FIX lines and cause words are read by the zoo's own support module
(tests/diagnosis/zoo_support.py); the programs run once per session for both tests
(`zoo_runs` in tests/conftest.py); and the cases the diagnosis cannot do yet are the zoo
test's own xfails (its `XFAIL` table, strict unless `RACY`), so the report and the TUI are
held to the same list. One app per program.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support.tui import follow_first_alert, sync

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

_DIAGNOSIS_TESTS = str(Path(__file__).resolve().parents[1] / "diagnosis")
if _DIAGNOSIS_TESTS not in sys.path:  # the zoo's helpers live beside its own test
    sys.path.insert(0, _DIAGNOSIS_TESTS)

import test_zoo  # noqa: E402  (the zoo test's XFAIL/RACY tables: one list for both)
from zoo_support import ZooProgram, affirms, norm, zoo_programs  # noqa: E402

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]  # the first test runs the zoo

PROGRAMS = zoo_programs()


def _params() -> list[object]:
    out = []
    for prog in PROGRAMS:
        marks = []
        if prog.name in test_zoo.XFAIL:
            marks.append(pytest.mark.xfail(strict=prog.name not in test_zoo.RACY,
                                           reason=f"issue 9: {test_zoo.XFAIL[prog.name]}"))
        out.append(pytest.param(prog, id=prog.name, marks=marks))
    return out


@pytest.mark.parametrize("prog", _params())
@sync
async def test_enter_on_the_first_alert_shows_the_fix_line_and_the_cause(
        zoo_runs: dict[str, Any], prog: ZooProgram) -> None:
    run = zoo_runs[prog.name]
    assert run.returncode == 0, f"{prog.name} failed:\n{run.output}"
    app = TfdbgApp(DebugLogdir(str(run.logdir)), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await follow_first_alert(app, pilot)
        s = app.main
        assert s is not None
        head = (run.report or {}).get("first_alerts", [{}])[0]
        want = (GRAPH if head.get("kind") == "graph" else EAGER, head.get("index"),
                head.get("output_slot"))
        assert s.alerts.selected_alert() == want, (
            f"selected alert {s.alerts.selected_alert()}, want the report's headline {want}")
        view, frame = s.source.view, s.source.frame
        said = s.alerts.diagnosis_box.plain  # the whole text (`i` shows it; the pane wraps)
        shown = f"{frame.file}:{view.line}" if frame is not None else "nothing"
        assert frame is not None and os.path.realpath(frame.file) == os.path.realpath(
            prog.path), f"Source Code shows {shown}, want {prog.path.name}; {said}"
        assert view.line == prog.fix_line, (
            f"highlighted line {view.line}, want FIX line {prog.fix_line}; {said}")
        assert (s.source.highlighted_text or "").strip().startswith(prog.fix_code)
        text = norm(said)
        for term in prog.causes:
            assert any(affirms(text, a) for a in term), f"diagnosis lacks {term}: {said}"
