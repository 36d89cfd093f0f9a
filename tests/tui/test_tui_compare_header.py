"""The header in compare mode at 120×32 (issue 19, point 4): which run is A, which is B and
how they compare must all stay in view; counts, run id and versions go first. A verdict
longer than the line can hold goes to a row of its own under it (issue 31, point 4).

Runs A and B are the same deterministic reference-like program (TF-free writer), so the
comparison's verdict is "equivalent"; A is shown under a long path, as a cluster run is.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.slowdown import WAIT
from support.tui import settle, sync, write_reference

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.compare.status import verdict_of

LONG_A = "/mnt/cluster/experiments/2026-11-25/transformer-large/run-17/tfdbg2_logdir"


@pytest.mark.parametrize("size", [(120, 32), (160, 45)])
@sync
async def test_compare_header_keeps_as_path_and_the_verdict(tmp_path: Path,
                                                           size: tuple[int, int]) -> None:
    write_reference(tmp_path / "A")
    write_reference(tmp_path / "B")
    app = TfdbgApp(DebugLogdir(str(tmp_path / "A")), follow=False, display_path=LONG_A,
                   compare_with=DebugLogdir(str(tmp_path / "B")))
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await pilot.pause()
        assert app.main is not None
        header = str(app.main.query_one("#header-line").render())
        a_part, vs, b_part = header.partition("vs B")
        assert vs, header
        assert "logdir" in a_part, header  # A's path, shortened from the left
        assert "alerts" in b_part and "● read" in b_part, header
        # the verdict, whole: on the line when it fits, else on its own row right under it
        verdict = verdict_of(app.main.compare_view.c)  # type: ignore[union-attr]
        assert verdict.startswith("equivalent"), verdict
        row = app.main.query_one("#compare-verdict")
        if verdict in b_part:
            assert not row.display
        else:
            assert row.display and row.region.y == 1, (header, row.region)
            assert " ".join(str(row.render()).split()) == verdict, verdict
