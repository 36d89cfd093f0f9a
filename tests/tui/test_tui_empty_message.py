"""A list's empty message is wrapped, never cut at the pane's edge.

A held-out check of issue 31 opened an eager run (`--compare` with the eager run as A, and
alone) at 160x45: Graph Executions said "no graph executions: this run called no tf.function
(its ops ran eagerl" — the sentence that says why the pane is empty, cut at its width.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from support.tui import settle, sync
from textual.geometry import Region

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = pytest.mark.tf


@pytest.mark.parametrize("size", [(160, 45), (120, 32)])
@sync
async def test_graph_executions_of_an_eager_run_says_why_whole(
        make_tf_logdir: Callable[..., str], size: tuple[int, int]) -> None:
    app = TfdbgApp(DebugLogdir(make_tf_logdir("eager")), follow=False)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        ge = app.main.ge  # type: ignore[union-attr]
        message = ge.vlist.empty_text
        assert ge.vlist.row_count == 0 and "ran eagerly" in message  # else nothing to see
        w, h = ge.vlist.outer_size
        assert w < len(message)  # narrower than the sentence: it must wrap
        drawn = " ".join(" ".join(s.text.split()) for s in ge.vlist.render_lines(
            Region(0, 0, w, h)) if s.text.strip())
        assert drawn == " ".join(message.split()), drawn
