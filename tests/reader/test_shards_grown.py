"""A run indexed while it was still being written, opened after its files grew: what the open
says must be what a direct read of the files as they are now says.

Before, an open took a host whose local files had grown since `index` as current and stopped
at its shard's cursors: the first `update()` (all `report` does) missed the rows appended
since — 12 executions fewer, an alert fewer — and called the records after the cursors "a
job killed mid-write"; only a second `update()` read them, appended after every host's rows
rather than merged in time. Now such a host is read from the logdir (as an object grown in
a bucket is, its ETag changed) and the warning says its file grew since it was indexed.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.commands.index import index_logdir
from tfdbg_tui.commands.report import _finite, build_report

pytest.importorskip("pyarrow")

T0 = 1_700_000_000.0
HOSTS = 3


def write_hosts(d: Path, steps: int) -> None:
    """Three hosts, `steps` steps each, their records interleaved in time; host 1's Log goes
    -inf from step 4, host 2's tf.function output NaN at step 5."""
    for k in range(HOSTS):
        with LogdirWriter(d, run_id="grown", hostname=f"h{k}",
                          file_timestamp=int(T0) + k) as w:
            f = w.add_source_file("/job/train.py", ["x = batch()", "y = tf.math.log(x)"])
            frame = w.add_stack_frame(f, 2, "train_step")
            w.add_graph("g", "train_step")
            w.add_op("g", "Placeholder", "x", [], stack_frame_ids=[frame])
            w.add_op("g", "Log", "log", ["x:0"], stack_frame_ids=[frame])
            for step in range(steps):
                t = T0 + step + k * 0.01
                bad = k == 1 and step >= 4
                w.add_graph_trace("g", "x", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, 0, 0, 0, 0, 0, 4], wall_time=t)
                w.add_graph_trace("g", "log", 0, "FULL_HEALTH",
                                  [1, 1, 1, 1, 4, int(bad), 0, 0, 0, 0, 4 - int(bad)],
                                  wall_time=t + 0.001)
                nan = k == 2 and step == 5
                w.add_execution("__inference_train_step_1", "FULL_HEALTH",
                                [[1, 1, 1, 1, 1, 0, 0, int(nan), 0, 0, 1 - int(nan)]],
                                graph_id="g", output_tensor_ids=[100 + step],
                                stack_frame_ids=[frame], wall_time=t + 0.002)


def report(logdir: DebugLogdir) -> dict[str, Any]:
    logdir.update()
    out: dict[str, Any] = json.loads(json.dumps(_finite(build_report(logdir, 50)),
                                                default=str))
    return out


def test_an_open_after_the_files_grew_is_a_direct_read_of_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    whole = tmp_path / "whole"
    write_hosts(whole, 8)
    run = tmp_path / "run"
    write_hosts(run, 4)  # (the writer is deterministic: each file a prefix of whole's)
    cut = next(run.glob("*.h2.graph_execution_traces"))
    cut.write_bytes(cut.read_bytes()[:-20])  # host 2 was writing a record
    results, _, _ = index_logdir(str(run), workers=1)
    assert [r.status for r in results] == ["indexed"] * HOSTS
    for host in ("h1", "h2"):  # the job went on: hosts 1 and 2 wrote four steps more
        for suffix in ("execution", "graph_execution_traces"):
            f = next(run.glob(f"*.{host}.{suffix}"))
            more = (whole / f.name).read_bytes()
            with open(f, "ab") as out:
                out.write(more[f.stat().st_size:])

    opened = report(DebugLogdir(str(run)))
    monkeypatch.setenv("TFDBG_TUI_SHARDS", str(tmp_path / "no-such-shard-folder"))
    direct = report(DebugLogdir(str(run)))
    assert direct["counts"]["executions"] == 4 + 8 + 8
    warned = [w for w in opened["warnings"] if ".tfdbg-index" in w]
    assert len(warned) == 2, opened["warnings"]
    assert all("grew since it was indexed" in w for w in warned), warned
    opened["warnings"] = [w for w in opened["warnings"] if w not in warned]
    assert opened == direct
