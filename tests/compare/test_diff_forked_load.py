"""`diff` reads run B in a forked child when both runs are big (`commands.pair_load`).

The child only warms the index cache; what `diff` says must not depend on it. Expected,
from the migration programs (tests/programs/migration): the TF1 Session run against its
eager rewrite with a changed `end_learning_rate` diverges, first at a learning rate — read
the same whether B was indexed by a child, by a child that died, or on a thread.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import migration_runs
from support.alone import alone

from tfdbg_tui.commands import diff, pair_load

pytestmark = [pytest.mark.tf,
              pytest.mark.skipif(sys.platform != "linux", reason="forked child: Linux"),
              pytest.mark.timeout(300, method="signal")]  # a timer thread would forbid forks
__all__ = ["migration_runs"]

_FORKS: list[int] = []  # pids that forked (the audit hook below appends)
_DIE = {"parent": -1}  # the pid whose forked children die as they open a traces file


def _watch(event: str, args: tuple[object, ...]) -> None:
    if event == "os.fork":
        _FORKS.append(os.getpid())
    elif (event == "open" and _DIE["parent"] not in (-1, os.getpid())
          and str(args[0]).endswith(".graph_execution_traces")):
        os._exit(70)


def _diff(a: str, b: str, cache: Path, monkeypatch: pytest.MonkeyPatch, *, fork: bool
          ) -> tuple[int, dict[str, Any]]:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(cache))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")  # the cache keeps small runs too
    monkeypatch.setattr(pair_load, "FORK_MIN_BYTES", 0 if fork else 1 << 62)
    assert pair_load.fork_worth(a, b) is fork
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = diff.main(["--json", a, b])
    return status, json.loads(out.getvalue())


@pytest.fixture(autouse=True, scope="module")
def _hook() -> None:
    sys.addaudithook(_watch)  # stays for the session: inert unless a test arms it


def test_a_child_indexing_b_changes_nothing_the_diff_says(
        migration_runs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    if not alone(request):
        return
    a, b = migration_runs["tf1"], migration_runs["eager_end_lr"]
    _FORKS.clear()
    status, forked = _diff(a, b, tmp_path / "c1", monkeypatch, fork=True)
    assert _FORKS == [os.getpid()]  # B was indexed by one child of this process
    assert status == 1 and not forked["equivalent"]
    assert forked["first_divergence"]["quantity"] == "learning_rate"
    _FORKS.clear()
    status_t, threaded = _diff(a, b, tmp_path / "c2", monkeypatch, fork=False)
    assert _FORKS == []
    assert (status_t, threaded) == (status, forked)


def test_a_child_that_dies_costs_time_only(
        migration_runs: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        request: pytest.FixtureRequest) -> None:
    if not alone(request):
        return
    a, b = migration_runs["tf1"], migration_runs["eager_end_lr"]
    _, threaded = _diff(a, b, tmp_path / "c1", monkeypatch, fork=False)
    _FORKS.clear()
    _DIE["parent"] = os.getpid()
    try:
        status, forked = _diff(a, b, tmp_path / "c2", monkeypatch, fork=True)
    finally:
        _DIE["parent"] = -1
    assert _FORKS == [os.getpid()]
    assert status == 1 and forked == threaded  # B read here after the child died


def test_no_child_when_it_cannot_pay(migration_runs: dict[str, str], tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch,
                                     request: pytest.FixtureRequest) -> None:
    if not alone(request):
        return
    a, b = migration_runs["tf1"], migration_runs["eager_end_lr"]
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TFDBG_TUI_CACHE_MIN_BYTES", "0")
    assert not pair_load.fork_worth(a, b)  # small runs: read on threads (default threshold)
    monkeypatch.setattr(pair_load, "FORK_MIN_BYTES", 0)
    assert pair_load.fork_worth(a, b)
    assert not pair_load.fork_worth(a, a)  # one run twice: one cache entry, no race on it
    assert not pair_load.fork_worth(a, "s3://bucket/run")  # remote: no local cache to warm
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", str(blocked))
    assert not pair_load.fork_worth(a, b)  # the child's index could not be kept
