"""Compare mode opens on the first divergence (issue 31, point 4).

Run A is the guide-style eager rewrite with a ReLU added (`# MIGRATION-BUG: relu`), run B
the TF1 Session program (tests/compare/migration_fixtures.py). Without a key pressed, the
pane holding the first divergence has the focus, its row is selected and followed (Source
Code on the ReLU line); the Timeline's rows carry =/≠ marks, Graph Executions says why it is
empty, and at 80×24 the verdict is whole (B's path yields first; a verdict the line
cannot hold goes to a row of its own under it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from compare.migration_fixtures import CUSTOM, diff_json, marked_line, migration_runs
from support.tui import settle, sync

from reader import DebugLogdir
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.compare.status import verdict_of

pytestmark = pytest.mark.tf
__all__ = ["migration_runs"]  # the session fixture, used by name

TOL = ("--atol", "1e-6", "--rtol", "1e-5")


def _app(a_dir: str, b_dir: str) -> TfdbgApp:
    return TfdbgApp(DebugLogdir(a_dir), follow=False, compare_with=DebugLogdir(b_dir),
                    tolerance=Tolerance(rtol=1e-5, atol=1e-6))


@sync
async def test_opens_on_the_first_divergence_of_an_eager_run(
        migration_runs: dict[str, str]) -> None:
    a_dir, b_dir = migration_runs["eager_relu"], migration_runs["tf1"]
    _, r = diff_json(a_dir, b_dir, *TOL)
    first = r["first_divergence"]
    assert first is not None and first["a"]["kind"] == "eager"
    app = _app(a_dir, b_dir)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), 120)
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.compare_view is not None
        assert s.current_pane() is s.timeline  # no key pressed
        assert s.timeline.selected == first["a"]["index"]
        frame = s.source.frame
        assert frame is not None
        assert (Path(frame.file).name, frame.line) == (
            CUSTOM, marked_line(CUSTOM, "BUG", "relu"))
        # every pane says something true: the Timeline's rows compare, GE says why empty
        chip = s.timeline._row(first["a"]["index"], 80).plain
        assert chip.startswith("≠"), chip
        assert any(s.timeline._row(k, 80).plain.startswith("=")
                   for k in range(first["a"]["index"]))
        assert "no tf.function" in s.ge.vlist.empty_text


@sync
async def test_the_verdict_is_whole_at_80x24(migration_runs: dict[str, str],
                                             tmp_path: Path) -> None:
    a_dir, b_dir = migration_runs["eager_relu"], migration_runs["tf1"]
    long_b = tmp_path / "a-rather-long-folder-name-for-run-b" / "tfdbg2_logdir_of_the_tf1_run"
    long_b.parent.mkdir()
    long_b.symlink_to(b_dir)
    app = _app(a_dir, str(long_b))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), 120)
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.compare_view is not None
        header = str(s.query_one("#header-line").render())
        verdict = verdict_of(s.compare_view.c)
        row = s.query_one("#compare-verdict")
        # whole: on the line when it fits there, else on its own row right under it
        if verdict in header:
            assert not row.display, header
        else:
            assert row.display, (verdict, header)
            assert " ".join(str(row.render()).split()) == " ".join(verdict.split())
        assert "alerts" in header
