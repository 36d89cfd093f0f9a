"""The first screen, corrected (issue 31, point 3), on the deterministic reference logdir:
help lists only keys that work, the footer offers e/w/y where they apply, every count of
Graph Executions is visible at 160×45, zoom keeps the selection in view, `v` after `o`
inspects the origin, the palette lists ours first, and NO_COLOR keeps warnings bright.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.segment import Segment
from rich.style import Style
from support.tui import settle, sync, workers_done, write_reference
from textual.color import Color
from textual.command import CommandPalette
from textual.widgets._footer import FooterKey

from reader import GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.inspector.inspector import ValueInspector
from tfdbg_tui.ui.nocolor import WarningMonochrome
from tfdbg_tui.ui.render import health_chips


@pytest.fixture
def ref(tmp_path: Path) -> str:
    write_reference(tmp_path / "logdir")
    return str(tmp_path / "logdir")


@sync
async def test_help_lists_only_keys_that_work(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.screen.plain_text()  # type: ignore[attr-defined]
        assert "Copy selected text" not in text  # ctrl+c quits here
        assert "Scroll Left" not in text and "Page Right" not in text  # lists do not scroll
        assert "differs from run B" not in text  # d/D need --compare
        assert "Next alert" in text and "Hide/show framework frames" not in text
        await pilot.press("escape", "6", "question_mark")  # Stack Trace's own key there
        await pilot.pause()
        assert "Hide/show framework frames" in app.screen.plain_text()  # type: ignore[attr-defined]


def _footer(app: TfdbgApp) -> set[str]:
    return {k.key for k in app.screen.query(FooterKey)}


@sync
async def test_footer_offers_edit_and_save_where_a_source_line_is(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        keys = _footer(app)
        assert "y" in keys and "e" not in keys and "w" not in keys  # Alerts is focused
        await pilot.press("5")
        await settle(app, pilot)
        keys = _footer(app)
        assert {"e", "w", "y"} <= keys


@sync
async def test_graph_executions_counts_are_whole_at_160x45(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        ge = app.main.ge  # type: ignore[union-attr]
        width = ge.vlist.scrollable_content_region.width
        logdir = app.state.logdir
        for i in range(len(logdir.traces)):
            row = ge._row(i, width)
            row.truncate(width)
            chips = health_chips(logdir.traces.health(i), compact=width < 110).plain
            assert chips in row.plain, (i, row.plain, chips)


@sync
async def test_zoom_keeps_the_selected_row_in_view(tmp_path: Path) -> None:
    write_reference(tmp_path / "logdir", steps=12)
    app = TfdbgApp(DebugLogdir(str(tmp_path / "logdir")), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("3", "end")
        await settle(app, pilot)
        vl = app.main.ge.vlist  # type: ignore[union-attr]
        for key in ("z", "z"):
            await pilot.press(key)
            await settle(app, pilot)
            top = int(vl.scroll_offset.y)
            cur = vl.position_of(vl.cursor_index)
            assert top <= cur < top + vl.scrollable_content_region.height


@sync
async def test_v_after_o_inspects_the_origin(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        await pilot.press("down")  # an alert downstream of the origin
        await settle(app, pilot)
        alert = s.alerts.selected_alert()
        d = s.alerts.diagnosis
        assert alert is not None and d is not None
        assert (d.origin_kind, d.origin_index) != alert[:2]
        await pilot.press("o")
        await settle(app, pilot)
        await pilot.press("v")
        await settle(app, pilot)
        inspector = app.screen
        assert isinstance(inspector, ValueInspector)
        assert (inspector.kind, inspector.index) == (d.origin_kind, d.origin_index)
        assert d.origin_kind == GRAPH


@sync
async def test_palette_lists_ours_before_textuals(ref: str) -> None:
    app = TfdbgApp(DebugLogdir(ref), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await workers_done(app)
        await pilot.pause()
        palette = app.screen
        assert isinstance(palette, CommandPalette)
        from textual.widgets import OptionList

        options = palette.query_one(OptionList)
        prompts = [str(options.get_option_at_index(k).prompt)
                   for k in range(options.option_count)]
        textual = [k for k, p in enumerate(prompts) if "(Textual)" in p]
        ours = [k for k, p in enumerate(prompts) if "(Textual)" not in p]
        assert ours and textual and max(ours) < min(textual), prompts
        # each action with its own key: "n/N" is the footer's pair, not next alert's key
        helps = {str(options.get_option_at_index(k).prompt).split("\n")[0]:
                 str(options.get_option_at_index(k).prompt) for k in ours}
        nxt = next(v for k, v in helps.items() if k.startswith("Next alert"))
        assert "key: n" in nxt and "n/N" not in nxt, nxt


def test_no_color_keeps_the_warnings_bright() -> None:
    warn = Style(color="#ff5f5f", bold=True)
    chip = Style(color="#ffffff", bgcolor="#b30000")
    plain = Style(color="#5fd7ff")
    out = WarningMonochrome().apply([Segment("115 alerts", warn), Segment("NaN 1", chip),
                                     Segment("path", plain)], Color(0, 0, 0))
    text, chip_out, other = (s.style for s in out)
    assert text is not None and chip_out is not None and other is not None
    assert text.color is not None and Color.from_rich_color(text.color).rgb == (255, 255, 255)
    assert chip_out.bgcolor is not None
    assert Color.from_rich_color(chip_out.bgcolor).rgb == (255, 255, 255)
    r, g, b = Color.from_rich_color(other.color).rgb  # type: ignore[arg-type]
    assert r == g == b  # everything else grey
