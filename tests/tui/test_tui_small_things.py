"""Small things a new user trips on in the first minute (issue 19, points 14 and 15), on the
reference logdir TensorFlow wrote (the MLP whose cross entropy takes log(0))."""

from __future__ import annotations

from dataclasses import replace

import pytest
from support.tui import settle, sync, workers_done
from textual.command import CommandPalette
from textual.widgets import Input

from reader import GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf
SIZE = (200, 50)


async def opened(path: str, pilot_app: TfdbgApp, pilot: object) -> MainScreen:
    await settle(pilot_app, pilot)
    assert pilot_app.main is not None
    return pilot_app.main


@sync
async def test_g_then_a_number_follows_that_alert(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        s = await opened(reference_logdir, app, pilot)
        a = s.alerts.alerts
        second = next(k for k in range(1, len(a)) if int(a.kind[k]) == GRAPH)
        await pilot.press("1", "g", *str(second + 1))  # alerts are numbered from 1
        assert isinstance(app.screen.focused, Input)
        await pilot.press("enter")
        await settle(app, pilot)
        assert s.alerts.selected == second
        assert s.ge.selected == int(a.index[second])  # followed, not only selected


@sync
async def test_the_palette_finds_origin(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(reference_logdir, app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"origin")
        await workers_done(app)
        await pilot.pause()
        shown = str(app.screen.query_one("CommandList").render())
        hits = app.screen.query_one("CommandList").option_count
        assert hits >= 1, shown


@sync
async def test_help_lists_each_key_once(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await opened(reference_logdir, app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.plain_text()
        assert "n/N" not in text and "d/D" not in text
        rows = [line.split() for line in text.splitlines()]
        assert any(r[:1] == ["N"] and "Previous" in r for r in rows)


@sync
async def test_graph_structure_cursor_skips_headings(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        s = await opened(reference_logdir, app, pilot)
        await pilot.press("4")
        rows = s.structure.rows
        assert any(not r.kind for r in rows[1:-1])  # there are headings between links
        for key in ("k", "k", "k", "j", "j", "j", "j", "j", "home", "end"):
            await pilot.press(key)
            pos = s.structure.vlist.cursor_index
            assert pos is not None and rows[pos].kind, (key, rows[pos].text.plain)


@sync
async def test_tf2_function_path_and_plurals(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        s = await opened(reference_logdir, app, pilot)
        lines = s.structure.lines()
        assert lines[1] == "in cross_entropy ⊂ train_step"  # no "(Session graph)" in TF2
        status = str(s.structure.border_subtitle)  # "· i: whole lines" when rows are cut
        assert status.split(" · ")[0] == "1 input", status


@sync
async def test_one_progress_figure_while_indexing(reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        s = await opened(reference_logdir, app, pilot)
        app.state.snapshot = replace(app.state.snapshot, indexing=True, done_bytes=40,
                                     total_bytes=100)
        s._update_header()
        await pilot.pause()
        header = str(s.query_one("#header-line").render())
        assert "indexing" in header and "%" not in header  # the bar beside it has the 40%
