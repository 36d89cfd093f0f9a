"""What the zoo's TUI test asks of every program (test_tui_zoo.py, test_tui_zoo2.py).

The 56 app sessions are split over two test files, half the programs each (alternate ones,
by name), so `make test`'s file-per-worker scheduler runs them on two workers at once: as one
file they were the suite's longest (493 s of one worker in a loaded run).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from support.tui import follow_first_alert

from reader import EAGER, GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

_DIAGNOSIS_TESTS = str(Path(__file__).resolve().parents[1] / "diagnosis")
if _DIAGNOSIS_TESTS not in sys.path:  # the zoo's helpers live beside its own test
    sys.path.insert(0, _DIAGNOSIS_TESTS)

import test_zoo  # noqa: E402  (the zoo test's XFAIL/RACY tables: one list for both)
from zoo_support import ZooProgram, affirms, norm, zoo_programs  # noqa: E402

PROGRAMS = zoo_programs()
PARTS = 2


def params(part: int) -> list[object]:
    """The programs of one test file: every PARTS-th, from the part-th."""
    out: list[object] = []
    for prog in PROGRAMS[part::PARTS]:
        marks = []
        if prog.name in test_zoo.XFAIL:
            marks.append(pytest.mark.xfail(strict=prog.name not in test_zoo.RACY,
                                           reason=f"issue 9: {test_zoo.XFAIL[prog.name]}"))
        out.append(pytest.param(prog, id=prog.name, marks=marks))
    return out


async def check_first_alert(zoo_runs: dict[str, Any], prog: ZooProgram) -> None:
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
