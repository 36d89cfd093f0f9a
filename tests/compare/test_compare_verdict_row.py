"""Compare mode's verdict is never cut (issue 31, point 4): at 80×24 and 120×32 the whole
verdict is on screen, on the header line when it fits there (the paths yield first) and on
a row of its own under it, wrapped, when it does not.

The runs are the forged eager loops of `test_compare_plot_forged` (B's loss NaN from step 3),
compared with a two-phase tolerance so that the verdict is long (~140 cells: longer than a
120-column line) — as a verdict with a migration guide's tolerance is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from compare.test_compare_plot_forged import NAN_AT, _run
from support.slowdown import WAIT
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.compare.status import verdict_of
from tfdbg_tui.ui.main_screen import MainScreen

LONG = Tolerance(rtol=1e-5, atol=1e-6, tight_steps=2)


def _screen_lines(app: TfdbgApp) -> list[str]:
    """What the terminal shows, one string per row (the compositor's strips)."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def _words(text: str) -> str:
    return " ".join(text.split())


async def _compared(app: TfdbgApp, pilot: object) -> MainScreen:
    await settle(app, pilot)
    await asyncio.wait_for(app.compared.wait(), WAIT)
    await settle(app, pilot)
    s = app.main
    assert s is not None and s.compare_view is not None
    return s


@pytest.mark.parametrize("size", [(80, 24), (120, 32)])
@sync
async def test_a_long_verdict_is_whole_on_screen(tmp_path: Path, size: tuple[int, int]) -> None:
    a = _run(tmp_path / "a", None)
    b = _run(tmp_path / "a-long-folder-name-for-run-b" / "its_tfdbg2_logdir", NAN_AT)
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b),
                   tolerance=LONG, display_path="/mnt/cluster/experiments/run-17/tfdbg2")
    async with app.run_test(size=size) as pilot:
        s = await _compared(app, pilot)
        verdict = verdict_of(s.compare_view.c)  # type: ignore[union-attr]
        assert verdict.startswith(f"diverge at step {NAN_AT}: loss"), verdict
        assert len(verdict) > size[0], verdict  # longer than the line: a row of its own
        lines = _screen_lines(app)
        header = lines[0]
        row = s.query_one("#compare-verdict")
        assert row.display and row.region.y == 1, row.region  # right under the header
        assert row.region.height >= -(-len(verdict) // (size[0] - 2))
        shown = " ".join(lines[row.region.y:row.region.bottom])
        assert _words(verdict) in _words(shown), (verdict, lines[:4])
        assert "…" not in shown, shown
        # the header still says which run B is and keeps the alert count and reading state
        assert "vs B" in header and "alerts" in header and "● read" in header, header
        assert "diverge" not in header, header  # said once, on its row


@sync
async def test_a_verdict_that_fits_stays_on_the_header_line(tmp_path: Path) -> None:
    """At 120×32 the default tolerance's verdict (~95 cells) fits the line once the paths
    are gone: no extra row is spent on it."""
    a = _run(tmp_path / "a", None)
    b = _run(tmp_path / "a-long-folder-name-for-run-b" / "its_tfdbg2_logdir", NAN_AT)
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b),
                   display_path="/mnt/cluster/experiments/run-17/tfdbg2")
    async with app.run_test(size=(120, 32)) as pilot:
        s = await _compared(app, pilot)
        verdict = verdict_of(s.compare_view.c)  # type: ignore[union-attr]
        header = _screen_lines(app)[0]
        assert verdict in header, (verdict, header)
        assert "alerts" in header and "● read" in header, header
        assert not s.query_one("#compare-verdict").display
        # narrower, it moves to its row; wider again, back on the line
        await pilot.resize_terminal(90, 32)
        await settle(app, pilot)
        assert s.query_one("#compare-verdict").display
        await pilot.resize_terminal(120, 32)
        await settle(app, pilot)
        assert not s.query_one("#compare-verdict").display
        assert verdict in _screen_lines(app)[0]
