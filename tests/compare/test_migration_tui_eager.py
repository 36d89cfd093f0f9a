"""Compare mode with run A on the eager side: `tfdbg-tui tf2-run --compare tf1-run` (issue 18).

Run A is the guide-style rewrite called eagerly with a ReLU added after layer 2 (its line is
marked `# MIGRATION-BUG: relu`); run B the TF1 Session program. A's tensors are eager ops, shown
in the Python Execution Timeline, not in Graph Executions: `d` must land there, on the
execution `diff --json` names as the first divergence, with Source Code on the ReLU line;
`b` then shows the TF1 line marked `# MIGRATION-A: relu`.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from compare.migration_fixtures import CUSTOM, TF1, diff_json, marked_line, migration_runs
from support.slowdown import WAIT
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

SIZE = (200, 50)
TOL = ("--atol", "1e-6", "--rtol", "1e-5")


@sync
async def test_d_lands_on_the_first_divergent_eager_op_in_the_timeline(
        migration_runs: dict[str, str]) -> None:
    a_dir, b_dir = migration_runs["eager_relu"], migration_runs["tf1"]
    _, r = diff_json(a_dir, b_dir, *TOL)
    first = r["first_divergence"]
    assert first is not None and first["a"]["kind"] == "eager"
    app = TfdbgApp(DebugLogdir(a_dir), follow=False, compare_with=DebugLogdir(b_dir),
                   tolerance=Tolerance(rtol=1e-5, atol=1e-6))
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.compare_view is not None
        await pilot.press("d")
        await settle(app, pilot)
        assert s.current_pane() is s.timeline
        assert s.timeline.selected == first["a"]["index"]
        frame = s.source.frame
        assert frame is not None
        assert (Path(frame.file).name, frame.line) == (CUSTOM, marked_line(CUSTOM, "BUG",
                                                                            "relu"))
        await pilot.press("b")
        await settle(app, pilot)
        frame = s.source.frame
        assert frame is not None
        assert (Path(frame.file).name, frame.line) == (TF1, marked_line(TF1, "A", "relu"))
        # D from the first divergence: nothing before it differs in this pair
        await pilot.press("b", "D")
        await settle(app, pilot)
        assert s.timeline.selected == first["a"]["index"]
