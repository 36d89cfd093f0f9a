"""Compare mode on migration pairs: `tfdbg-tui tf1-run --compare tf2-run`, through the pilot.

Run A is the TF1 Session program, run B a rewrite with one mistake (tests/programs/migration).
What a user sees is checked: `d` selects, in Graph Executions, the tensor `diff --json` names
as the first divergence, and Source Code shows the TF1 line marked `# MIGRATION-A: <variant>`;
`b` shows the rewrite's line marked `# MIGRATION-BUG: <variant>`; the verdict and which run A
is compared with stay on screen in the header or footer (not only in a toast, which goes away).
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import CUSTOM, TF1, diff_json, marked_line, migration_runs
from support.slowdown import WAIT
from support.tui import settle, sync
from textual.pilot import Pilot

from reader import DebugLogdir
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

SIZE = (200, 50)
TOL = ("--atol", "1e-6", "--rtol", "1e-5")
TOASTS = {"Toast", "ToastRack", "ToastHolder"}


async def _compared(app: TfdbgApp, pilot: Pilot) -> MainScreen:
    await settle(app, pilot)
    await asyncio.wait_for(app.compared.wait(), WAIT)
    await settle(app, pilot)
    assert app.main is not None and app.main.compare_view is not None
    return app.main


def _edge_text(screen: MainScreen, height: int) -> str:
    """The text of every widget drawn on the top two or bottom two rows (header, footer,
    status lines), toasts excepted."""
    parts = []
    for w in screen.query("*"):
        if any(type(n).__name__ in TOASTS for n in (w, *w.ancestors)):
            continue
        r = w.region
        if w.children or not r.height or not (r.y <= 1 or r.bottom >= height - 1):
            continue
        parts.append(str(w.render()))
    return "\n".join(parts)


async def _source(app: TfdbgApp, pilot: Pilot, s: MainScreen) -> tuple[str, int]:
    await settle(app, pilot)
    frame = s.source.frame
    assert frame is not None
    return Path(frame.file).name, frame.line


Check = Callable[[TfdbgApp, Pilot, MainScreen, DebugLogdir], Awaitable[None]]


async def _open(a_dir: str, b_dir: str, pilot_test: Check) -> None:
    """Run `pilot_test(app, pilot, screen, a)` in `tfdbg-tui A --compare B` once compared."""
    a = DebugLogdir(a_dir)
    app = TfdbgApp(a, follow=False, compare_with=DebugLogdir(b_dir),
                   tolerance=Tolerance(rtol=1e-5, atol=1e-6))
    async with app.run_test(size=SIZE) as pilot:
        s = await _compared(app, pilot)
        await pilot_test(app, pilot, s, a)


def _first(a_dir: str, b_dir: str) -> dict[str, Any]:
    """`diff --json`'s first divergence, where `d` must land (A is a TF1 graph run)."""
    _, r = diff_json(a_dir, b_dir, *TOL)
    first = r["first_divergence"]
    assert first is not None and first["a"]["kind"] == "graph"
    return first


async def _press_d(app: TfdbgApp, pilot: Pilot, s: MainScreen, a: DebugLogdir,
                   first: dict[str, Any]) -> None:
    await pilot.press("d")
    await settle(app, pilot)
    selected = s.ge.selected
    assert selected is not None and selected == first["a"]["index"]
    assert a.op_name_of_trace(selected) == first["a"]["op_name"]


@sync
async def test_d_lands_on_the_first_divergence_and_b_shows_the_rewrite_line(
        migration_runs: dict[str, str]) -> None:
    a_dir, b_dir = migration_runs["tf1"], migration_runs["eager_relu"]
    first = _first(a_dir, b_dir)

    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen, a: DebugLogdir) -> None:
        await _press_d(app, pilot, s, a, first)
        assert await _source(app, pilot, s) == (TF1, marked_line(TF1, "A", "relu"))
        await pilot.press("b")
        assert await _source(app, pilot, s) == (CUSTOM, marked_line(CUSTOM, "BUG", "relu"))

    await _open(a_dir, b_dir, check)


@sync
async def test_d_agrees_with_diff_on_a_tf_function_pair(migration_runs: dict[str, str]
                                                       ) -> None:
    """The rewrite in tf.function with from_logits=False: d selects the tensor diff names,
    and Source Code shows the TF1 loss line."""
    a_dir, b_dir = migration_runs["tf1"], migration_runs["function_from_logits"]
    first = _first(a_dir, b_dir)

    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen, a: DebugLogdir) -> None:
        await _press_d(app, pilot, s, a, first)
        assert await _source(app, pilot, s) == (TF1, marked_line(TF1, "A", "from_logits"))

    await _open(a_dir, b_dir, check)


@sync
async def test_the_verdict_and_run_b_stay_in_the_header_or_footer(
        migration_runs: dict[str, str]) -> None:
    a_dir, b_dir = migration_runs["tf1"], migration_runs["fit_dtype"]

    async def check(app: TfdbgApp, pilot: Pilot, s: MainScreen, a: DebugLogdir) -> None:
        for key in ("", "d", "b"):  # on arrival, and after moving
            if key:
                await pilot.press(key)
                await settle(app, pilot)
            edges = _edge_text(s, SIZE[1])
            assert re.search(r"\bdiverge[sd]?\b", edges, re.I), edges
            assert "equivalent" not in edges.lower(), edges
            assert Path(b_dir).name in edges, edges  # which run A is compared with
            for k in ("d", "b"):  # the keys that go to the divergence and to B's side
                assert re.search(rf"(^|[\s(]){k}\b", edges), (k, edges)

    await _open(a_dir, b_dir, check)
