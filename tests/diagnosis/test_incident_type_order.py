"""An incident's alerts per op type are listed in one order whatever way the run was read.

Why: the counts come out of the string table (`reader.diagnosis.incidents`), whose ids are
numbered in the order strings were met — which differs between a read of the hosts in one
pass and a read host by host (parallel workers, `tfdbg-tui index`'s shards). Ties in count
used to keep that order, so `report` of the same run said "(Log×3, Sqrt×3, step_0×3 …)"
read one way and "(Log×3, step_0×3, Sqrt×3 …)" the other. Ties are now broken by name.

The run: two hosts, each a graph op and its function's call; h1's (Sqrt) go bad at every
step, h0's (Log) from step 6 on, each step 10 ms before h1's. Incident 1 is h1's Sqrt (steps
0-5); incident 2 begins at h0's Log in step 6 and counts the four op types of steps 6-9
(4 each): the later Sqrt alerts are counted with the last alert diagnosed before them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dumper.writer import LogdirWriter
from reader import DebugLogdir
from tfdbg_tui.commands.report import build_report

T0 = 1_700_000_000.0
BAD = [1, 1, 1, 1, 4, 1, 0, 0, 3, 0, 0]  # FULL_HEALTH: 4 elements, one −∞
GOOD = [1, 1, 1, 1, 4, 0, 0, 0, 4, 0, 0]
STEPS, H0_BAD = 10, 6


def write_run(d: Path) -> None:
    for k, op in enumerate(("Log", "Sqrt")):
        with LogdirWriter(d, run_id="r", hostname=f"h{k}", file_timestamp=int(T0) + k) as w:
            w.add_graph(f"g{k}", f"step_{k}")
            w.add_op(f"g{k}", op, f"{op.lower()}", [])
            for step in range(STEPS):
                t = T0 + step + (0.01 if k == 0 else 0.02)
                v = BAD if k == 1 or step >= H0_BAD else GOOD
                w.add_graph_trace(f"g{k}", op.lower(), 0, "FULL_HEALTH", v, wall_time=t)
                w.add_execution(f"__inference_step_{k}", "FULL_HEALTH", [v],
                                graph_id=f"g{k}", output_tensor_ids=[step],
                                wall_time=t + 0.001)


def incident_types(d: Path, monkeypatch: pytest.MonkeyPatch, by_host: bool
                         ) -> list[list[tuple[str, int]]]:
    if by_host:  # the hosts read by two worker processes, then merged
        monkeypatch.setenv("TFDBG_TUI_WORKERS", "2")
        monkeypatch.setenv("TFDBG_TUI_PARALLEL_MIN_BYTES", "0")
    else:
        monkeypatch.delenv("TFDBG_TUI_PARALLEL_MIN_BYTES", raising=False)
    monkeypatch.setenv("TFDBG_TUI_CACHE_DIR", "")
    logdir = DebugLogdir(str(d))
    logdir.update()
    report: dict[str, Any] = build_report(logdir, 10)
    return [list(inc["op_types"].items()) for inc in report["incidents"]]


def test_tied_op_types_same_order_in_either_read(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    write_run(tmp_path)
    expected = [[("Sqrt", 6), ("__inference_step_1", 6)],
                [("Log", 4), ("Sqrt", 4), ("__inference_step_0", 4), ("__inference_step_1", 4)]]
    assert incident_types(tmp_path, monkeypatch, by_host=False) == expected
    assert incident_types(tmp_path, monkeypatch, by_host=True) == expected
