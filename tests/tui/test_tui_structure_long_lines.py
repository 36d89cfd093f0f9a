"""Graph Structure with names longer than the pane (issue 19, point 14): a row is never cut
silently at the edge. It is shortened in the middle — what the row is (arrow, name start)
and where it comes from (its end) both stay — and `i` on the pane shows every row whole.

The logdir is the reference-like program (TF-free writer) with every op under a long scope,
as Keras and tf.function nesting make them in real models.
"""

from __future__ import annotations

from pathlib import Path

from support.tui import add_step, settle, start_reference, sync
from textual.geometry import Region
from textual.widget import Widget

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

SCOPE = ("model/transformer_encoder_block_11/multi_head_attention/attention_output/"
         "dense_projection/")


def _shown(widget: Widget) -> list[str]:
    w, h = widget.outer_size
    return [strip.text for strip in widget.render_lines(Region(0, 0, w, h))]


@sync
async def test_long_rows_are_cut_in_the_middle_and_i_shows_them_whole(tmp_path: Path) -> None:
    ref = start_reference(tmp_path / "run", op_prefix=SCOPE)
    add_step(ref, 0, op_prefix=SCOPE, bad=True)
    ref.writer.close()
    app = TfdbgApp(DebugLogdir(str(tmp_path / "run")), follow=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        pane = s.structure
        assert pane.rows, "the first alert (Log) is followed at launch"
        await pilot.press("4", "z")  # the pane alone: every row on screen, 118 cells wide
        await pilot.pause()
        whole = pane.lines()
        long_rows = [line for line in whole if len(line) > pane.vlist.content_region.width]
        assert long_rows, "the scope must make some rows longer than the pane"
        drawn = " ".join(_shown(pane.vlist))
        for line in long_rows:
            # the row's end (its op type, its origin) is on screen, its middle is not
            assert line[-12:] in drawn, (line, drawn)
        assert "…" in drawn
        assert "i: whole lines" in str(pane.border_subtitle)
        await pilot.press("i")
        await pilot.pause()
        body = app.screen.query_one("#text-body").render()
        text = " ".join(str(body).split())
        for line in long_rows:
            assert " ".join(line.split()) in text
