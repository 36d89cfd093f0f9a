"""Diagnosis at the edges (issue 20): scenario programs in tests/programs/edges/.

Each program is written the way a user writes it, with the zoo's header (`# EXPECT …`, see
zoo_support.py) and `# FIX` on the line to change, stated before the tool was run:
- p1_*: precision loss upstream — a float16 softplus that underflows to 0 before a Log (the
  line to fix is the softplus), finite float16 inputs that Square/Exp/MatMul overflow;
- p3_*: integer inputs cannot carry NaN but can be the reason (CTC labels too long);
- p4_*: an input made outside any recorded op is the cause only when it holds the NaN;
- t*: ops of different families of the op table (reader/diagnosis/optable.json): singular
  and non-positive-definite matrices, poles, domain edges, overflow.

The programs share one TensorFlow process (tests/programs/edges_driver.py, forked from one
that imported TensorFlow already: support.tf_fork), each into its own logdir; `tfdbg-tui
report --json` then reads each logdir as a user would.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from support.paths import PROGRAMS
from support.recordings import local_imports, recorded
from support.report_run import report_json
from support.shared import build_once, shared_root
from support.tf_fork import run_forked
from support.tui import follow_first_alert, sync
from zoo_support import ZooProgram, parse_program, problems, summary

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]

EDGES = PROGRAMS / "edges"
SCENARIOS = [parse_program(p) for p in sorted(EDGES.glob("*.py"))]


def _report(logdir: Path) -> dict[str, Any] | str:
    """`tfdbg-tui report --json` through its entry point, in this process
    (support.report_run)."""
    rep = report_json(str(logdir))
    return rep.report if rep.report is not None else f"report --json unreadable: {rep.error}"


@pytest.fixture(scope="session")
def edge_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """stem → {"returncode", "output", "report"} for every scenario, built once per run."""
    pytest.importorskip("tensorflow")

    def record(root: Path) -> dict[str, Any]:
        status = root / "status.json"
        done = run_forked([PROGRAMS / "edges_driver.py", root, status,
                           *(s.path for s in SCENARIOS)])
        if done.status != 0:
            pytest.fail(f"edges_driver failed (status {done.status}):\n{done.err[-3000:]}")
        runs: dict[str, Any] = json.loads(status.read_text())
        return runs

    def build(_: Path) -> dict[str, Any]:
        # the recordings are kept for the next runs (support.recordings), the reports not
        path, runs = recorded(
            tmp_path_factory, "edges",
            [p for s in SCENARIOS for p in local_imports(s.path)] + [PROGRAMS / "edges_driver.py"],
            record, keep=lambda runs: all(r["returncode"] == 0 for r in runs.values()))
        root = Path(path)
        for s in SCENARIOS:
            runs[s.name]["report"] = _report(root / s.name)
            runs[s.name]["logdir"] = str(root / s.name)
        return runs

    return build_once(shared_root(tmp_path_factory), "edges", build)


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name) for p in SCENARIOS])
def test_edge_diagnosis_names_the_line_and_the_cause(edge_runs: dict[str, Any],
                                                     prog: ZooProgram) -> None:
    run = edge_runs[prog.name]
    assert run["returncode"] == 0, f"{prog.name} failed:\n{run['output']}"
    report = run["report"]
    assert isinstance(report, dict), report
    found = problems(prog, report)
    assert not found, (f"{prog.name} (FIX line {prog.fix_line}): today {summary(report)}\n  - "
                       + "\n  - ".join(found))


def test_edges_cover_the_issue() -> None:
    """Points 1, 3 and 4 have scenarios, and at least twelve ops of the table have one."""
    stems = [p.name for p in SCENARIOS]
    for point in ("p1_", "p3_", "p4_"):
        assert any(s.startswith(point) for s in stems), point
    table_ops = {p.origin_ops[0] for p in SCENARIOS if p.name.startswith("t")}
    assert len(table_ops) >= 12


@sync
async def test_the_tui_shows_the_underflowing_line(edge_runs: dict[str, Any]) -> None:
    """launch → Enter on the first alert: Source Code highlights the softplus line (where
    float16 underflowed), not the Log that met the zeros — the TUI follows the fix."""
    prog = next(p for p in SCENARIOS if p.name == "p1_fp16_softplus_log")
    assert edge_runs[prog.name]["returncode"] == 0
    logdir = Path(edge_runs[prog.name]["logdir"])
    app = TfdbgApp(DebugLogdir(str(logdir)), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await follow_first_alert(app, pilot)
        s = app.main
        assert s is not None and s.source.frame is not None
        assert os.path.realpath(s.source.frame.file) == os.path.realpath(prog.path)
        said = str(s.alerts.query_one("#alerts-diagnosis").render())
        assert s.source.view.line == prog.fix_line, said
        assert "underflow" in said
