"""At 120×32 the Timeline is 31 cells wide; a tf.function call's row holds up to three
outputs' counts. No count may be out of reach (issue 31, the first screen): a row drops dtype
and shape before any count, and what still does not fit ends in "…" and scrolls sideways with
the keys `?` lists for the pane.

The logdir is written here (the TF-free writer): the reference steps, then one call with three
outputs whose counts are chosen so that they cannot fit 31 cells together. The counts the
test looks for are spelled from that construction.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support.tui import add_step, health, settle, start_reference, sync

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen
from tfdbg_tui.ui.vlist import VirtualList

# the last call's three outputs: (health vector, the counts a user must be able to read)
OUTPUTS = [
    (health(-1, 1000, nan=3, neg=981, zero=16, rank=1), ["NaN 3", "−:981 0:16 +:0"]),
    (health(-1, 1000, pinf=2, neg=500, zero=1, pos=497, rank=1), ["+∞ 2", "−:500 0:1 +:497"]),
    (health(-1, 1000, ninf=1, neg=999, rank=1), ["−∞ 1", "−:999 0:0 +:0"]),
]


@pytest.fixture
def wide(tmp_path: Path) -> str:
    path = tmp_path / "logdir"
    ref = start_reference(path)
    for step in range(2):
        add_step(ref, step, bad=step > 0)
    ref.wall += 0.001
    ref.writer.add_execution("__inference_train_step_42", "FULL_HEALTH",
                             [h for h, _ in OUTPUTS], graph_id=ref.outer,
                             input_tensor_ids=[1, 2], output_tensor_ids=[30, 31, 32],
                             stack_frame_ids=ref.frames["call"], wall_time=ref.wall)
    ref.writer.close()
    return str(path)


def _line(vl: VirtualList, position: int) -> str:
    top = int(vl.scroll_offset.y)
    return "".join(seg.text for seg in vl.render_line(position - top))


@sync
async def test_every_count_of_a_wide_row_can_be_read_at_120x32(wide: str) -> None:
    app = TfdbgApp(DebugLogdir(wide), follow=False)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        await pilot.press("2")
        await pilot.press("end")
        await settle(app, pilot)
        vl = s.query_one("#tl-list", VirtualList)
        last = vl.row_count - 1
        assert vl.cursor_index == last == 2  # two steps' calls, then the wide one
        width = vl.scrollable_content_region.width
        assert width < 40  # the premise: the pane is narrow at this size
        seen = [_line(vl, last)]
        assert seen[0].rstrip().endswith("…"), seen  # a cut row says so
        for _ in range(20):  # → until the row's end is on screen
            before = vl.x_offset
            await pilot.press("right")
            await pilot.pause()
            if vl.x_offset == before:
                break
            seen.append(_line(vl, last))
        assert len(seen) > 1 and not seen[-1].rstrip().endswith("…"), seen
        for _, counts in OUTPUTS:
            for c in counts:
                assert any(c in line for line in seen), (c, seen)
        # the short rows fit: whole at the start, their counts never cut
        await pilot.press("left")
        for _ in range(20):
            await pilot.press("left")
        await pilot.pause()
        assert vl.x_offset == 0
        assert "NaN 1" in _line(vl, 1) and not _line(vl, 1).rstrip().endswith("…")
        # and `?` in the Timeline lists the keys that scroll it
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        text = app.screen.plain_text()
        assert re.search(r"\n\s*→\s+Scroll the rows right", text), text
        assert re.search(r"\n\s*←\s+Scroll the rows back left", text), text
