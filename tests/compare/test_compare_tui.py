"""Compare mode in the app (`tfdbg-tui A --compare B`), driven by keys through Textual's pilot.

Run A is the MLP, run B the same program with `relu` changed to `relu6` (FULL_TENSOR). What
is checked is what the user sees: the column in Graph Executions, where `d`/`D` land, and
which program's line Source Code shows after `b` — the lines come from the program files.
"""

from __future__ import annotations

import asyncio

import numpy as np
import pytest
from compare.pairs_support import marker_line
from support.slowdown import WAIT
from support.tui import settle, sync
from textual.pilot import Pilot

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf
SIZE = (200, 50)


async def _compared(app: TfdbgApp, pilot: Pilot) -> MainScreen:
    await settle(app, pilot)
    await asyncio.wait_for(app.compared.wait(), WAIT)
    await settle(app, pilot)
    assert app.main is not None
    return app.main


async def _source_line(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> int:
    await settle(app, pilot)
    frame = s.source.frame
    assert frame is not None and frame.file.endswith("mlp.py"), frame
    return frame.line


@sync
async def test_compare_column_divergence_keys_and_b_side(pair_runs: dict[str, str]) -> None:
    a = DebugLogdir(pair_runs["base"])
    app = TfdbgApp(a, follow=False, compare_with=DebugLogdir(pair_runs["relu6"]))
    async with app.run_test(size=SIZE) as pilot:
        s = await _compared(app, pilot)
        assert s.compare_view is not None
        names = [a.op_name_of_trace(i) for i in range(len(a.traces))]
        relu = [i for i, n in enumerate(names) if n == "Relu"]
        # the column: the first rows (before the activation) are equal, Relu differs
        assert s.ge._row(0, 150).plain.startswith("=")
        assert s.ge._row(relu[0], 150).plain.startswith("≠")
        assert "Relu" in s.ge._row(relu[0], 150).plain  # the row itself is still drawn
        # d: the first divergence is the first Relu; d again goes further, D comes back
        await pilot.press("d")
        await settle(app, pilot)
        assert s.ge.selected == relu[0]
        assert s.focused is s.ge.vlist
        assert await _source_line(app, pilot, s) == marker_line("mlp.py", "relu")
        await pilot.press("d")
        await settle(app, pilot)
        second = s.ge.selected
        assert second is not None and second > relu[0]
        await pilot.press("D")
        await settle(app, pilot)
        assert s.ge.selected == relu[0]
        # b: run B's side of the same tensor — its Relu6, on its own line; b again: back to A
        await pilot.press("b")
        assert s.stack.what.startswith("B: created Relu6")
        assert await _source_line(app, pilot, s) == marker_line("mlp.py", "relu6")
        assert s.source.logdir is app.compare_with
        await pilot.press("b")
        assert await _source_line(app, pilot, s) == marker_line("mlp.py", "relu")
        assert s.source.logdir is a


@sync
async def test_divergence_keys_without_a_comparison_only_explain(pair_runs: dict[str, str]
                                                                ) -> None:
    app = TfdbgApp(DebugLogdir(pair_runs["base"]), follow=False)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        before = s.ge.selected
        await pilot.press("d", "b")
        await settle(app, pilot)
        assert s.ge.selected == before and s.compare_view is None
        assert not s.ge._row(0, 150).plain.startswith(("=", "≠"))


@sync
async def test_equivalent_runs_show_only_equal_rows(pair_runs: dict[str, str]) -> None:
    app = TfdbgApp(DebugLogdir(pair_runs["base"]), follow=False,
                   compare_with=DebugLogdir(pair_runs["base_again"]))
    async with app.run_test(size=SIZE) as pilot:
        s = await _compared(app, pilot)
        assert s.compare_view is not None
        n = len(app.state.logdir.traces)
        chips = {s.ge._row(i, 150).plain[:1] for i in np.linspace(0, n - 1, 25).astype(int)}
        assert chips == {"="}
        before = s.ge.selected
        await pilot.press("d")
        await settle(app, pilot)
        assert s.ge.selected == before  # nothing to jump to
