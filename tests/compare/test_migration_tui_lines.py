"""Compare mode shows the lines `diff` names (issue 29, point 4), through the pilot.

`diff --json`'s first divergence names, on each side, the line to change: for a layer's
output run by `fit` the line BUILDING the layer (`Dense(...)`, the `model.fit` line kept as
`applied_at`), for an update the line constructing the optimizer. The TUI must show the same
file:line in Source Code — on opening (run A's side) and after `b` (run B's) — and the calling
line ▶ in Stack Trace, whichever run is A. The expected lines are read from `diff --json`
(the other command), never from the TUI's own code.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, migration_runs
from support.slowdown import WAIT
from support.tui import settle, sync

from reader import DebugLogdir
from reader.index.frames import user_frame_index
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

SIZE = (200, 50)
TOL = ("--atol", "1e-6", "--rtol", "1e-5")


def _at(frame: dict[str, Any]) -> tuple[str, int]:
    return Path(frame["file"]).name, int(frame["line"])


def _source(s: MainScreen) -> tuple[str, int]:
    frame = s.source.frame
    assert frame is not None, "Source Code shows no line"
    return Path(frame.file).name, frame.line


def _stack_line(s: MainScreen) -> tuple[str, int] | None:
    """The Stack Trace's user line (▶)."""
    k = user_frame_index(s.stack.frames)
    return None if k is None else (Path(s.stack.frames[k].file).name, s.stack.frames[k].line)


def _check_side(s: MainScreen, side: dict[str, Any], name: str) -> None:
    assert _source(s) == _at(side["user_frame"]), (name, side["user_frame"])
    if side.get("applied_at"):  # the applying (calling) line: ▶ in Stack Trace, and named
        assert _stack_line(s) == _at(side["applied_at"]), (name, side["applied_at"])
        file, line = _at(side["applied_at"])
        # its title, whole; `line N` where it is the file of the line shown
        where = f"line {line}" if file == _at(side["user_frame"])[0] else f"{file}:{line}"
        assert f"applied at {where}" in s.stack.what, s.stack.what


@pytest.mark.parametrize(("a", "b", "quantity", "moved"), [
    # B under fit, its second Dense built without a bias: diff moves B's line to Dense(...)
    ("tf1", "fit_nobias", "layer_output", "b"),
    # the same pair the other way round: run A (the app's) is the fit run
    ("fit_nobias", "tf1", "layer_output", "a"),
    # an update whose optimizer is constructed on another line than model.fit
    ("tf1", "fit_momentum", "update", "b"),
])
@sync
async def test_source_shows_the_line_diff_names_on_both_sides(
        migration_runs: dict[str, str], a: str, b: str, quantity: str, moved: str) -> None:
    a_dir, b_dir = migration_runs[a], migration_runs[b]
    _, r = diff_json(a_dir, b_dir, *TOL)
    first = r["first_divergence"]
    assert first is not None and first["quantity"] == quantity, first
    assert first["a"]["kind"] == "graph", first["a"]
    # the pair is one where diff does move the line: it is not the tensor's own
    assert "applied_at" in first[moved], first[moved]
    assert first[moved]["user_frame"]["line"] != first[moved]["applied_at"]["line"]

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
        assert s.ge.selected == first["a"]["index"]
        _check_side(s, first["a"], "A")
        await pilot.press("b")
        await settle(app, pilot)
        _check_side(s, first["b"], "B")
        await pilot.press("b")  # back on run A's side: its line again
        await settle(app, pilot)
        _check_side(s, first["a"], "A")
