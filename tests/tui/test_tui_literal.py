"""Strings from a logdir are shown literally: Rich markup is not interpreted and escape
sequences / control characters are made visible instead of reaching the terminal."""

from __future__ import annotations

import asyncio
from pathlib import Path

from support.slowdown import WAIT
from support.tui import TRAIN_LINES, add_step, start_reference, sync, workers_done
from textual.scroll_view import ScrollView

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

HOSTILE = "[red]x[/red][link=evil]\x1b[31m\x07"
SHOWN = "[red]x[/red][link=evil]\\x1b[31m\\x07"
SOURCE_TAIL = "  # [bold]b[/bold] \x1b]0;pwned\x07 [link=https://e.vil]y[/link]"
SOURCE_SHOWN = "# [bold]b[/bold] \\x1b]0;pwned\\x07 [link=https://e.vil]y[/link]"


def widget_text(widget: ScrollView) -> str:
    """What the widget draws, line by line, as the terminal would receive it."""
    lines = []
    for y in range(widget.size.height):
        lines.append("".join(seg.text for seg in widget.render_line(y)))
    return "\n".join(lines)


@sync
async def test_markup_and_escapes_are_shown_literally(tmp_path: Path) -> None:
    lines = list(TRAIN_LINES)
    lines[5] += SOURCE_TAIL  # the Log op's line, shown in Source Code
    ref = start_reference(tmp_path / "hostile", op_prefix=HOSTILE, source_lines=lines)
    add_step(ref, 0, op_prefix=HOSTILE, bad=True)
    ref.writer.close()
    app = TfdbgApp(DebugLogdir(str(tmp_path / "hostile")), follow=False,
                   display_path=str(tmp_path / "hostile") + "\x1b[2J[b]")
    async with app.run_test(size=(200, 50)) as pilot:
        await asyncio.wait_for(app.indexed.wait(), WAIT)
        await workers_done(app)
        await pilot.pause()
        await pilot.press("enter")
        await workers_done(app)
        await pilot.pause()
        s = app.main
        assert s is not None
        drawn = {
            "graph executions": widget_text(s.ge.vlist),
            "alerts": widget_text(s.alerts.vlist),
            "structure": widget_text(s.structure.vlist),
            "source": widget_text(s.source.view),
            "stack": widget_text(s.stack.vlist),
        }
        assert SHOWN in drawn["graph executions"]
        assert "[red]x[/red][lin" in drawn["alerts"]  # the pane is narrow: cut, not parsed
        assert SHOWN + "Log" in drawn["structure"]
        assert SOURCE_SHOWN in drawn["source"]
        for name, text in drawn.items():
            assert "\x1b" not in text and "\x07" not in text, name
        header = s.query_one("#header-line").render()
        assert "\\x1b[2J[b]" in str(header) and "\x1b" not in str(header)
