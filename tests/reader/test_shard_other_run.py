"""A shard folder given by `$TFDBG_TUI_SHARDS` (`index --out`) holding another run's shard of a
file set of the same name: dropped, and the warning says it is another run's.

Why (issue 32's held-out check): `diff A B` with `TFDBG_TUI_SHARDS` set to A's `--out` folder
looks there for B's shards too. Where B's file sets have A's names (same hosts, same start
second), B was told "stale: it is another file set's" — not what happened (the file set is
the same name; the run is another), and its hint, `tfdbg-tui index`, would overwrite A's
shards in that folder.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.commands.index import index_logdir

pytest.importorskip("pyarrow")
T0 = 1_700_000_000.0


def write(d: Path, run: str) -> None:
    for k in range(2):
        with LogdirWriter(d, run_id=run, hostname=f"h{k}", file_timestamp=int(T0)) as w:
            w.add_graph("g", "step")
            w.add_op("g", "Exp", "exp", [])
            for step in range(3):
                w.add_graph_trace("g", "exp", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4], wall_time=T0 + step + k)


def test_another_runs_shard_of_the_same_name_is_said_to_be_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", "")
    write(tmp_path / "a", "run-a")
    write(tmp_path / "b", "run-b")
    out = tmp_path / "shards"
    results, _, _ = index_logdir(str(tmp_path / "a"), out=str(out), workers=1)
    assert [r.status for r in results] == ["indexed", "indexed"]
    monkeypatch.setenv("TFDBG_TUI_SHARDS", str(out))
    b = DebugLogdir(str(tmp_path / "b"))
    b.update()
    assert len(b.traces) == 6
    dropped = [w for w in b.warnings if "not used" in w]
    assert len(dropped) == 2, b.warnings  # one a shard (up to three)
    for w in dropped:
        assert "stale: it is another run's" in w and "another file set's" not in w
