"""One-shot commands run without Python's cyclic collector, and leave it as it was.

`tfdbg_tui.cli._no_cycle_collection` (why: see there). Observed through `gc.callbacks`,
which Python calls at the start of every collection: none starts while a report of a run
whose alerts take thousands of objects to describe runs; a caller of `main` (a notebook,
these tests) gets its collector back on (and its first collection then, once the command
is done).
"""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import numpy as np

from dumper.writer import LogdirWriter
from tfdbg_tui.cli import main


def test_report_runs_without_cycle_collections_and_restores_the_collector(
        tmp_path: Path, capsys: Any) -> None:
    with LogdirWriter(tmp_path, run_id="gc", hostname="h") as w:
        w.add_graph("g", "train_step")
        w.add_op("g", "Log", "loss/Log", [])
        v = np.zeros((400, 11))
        v[:, 0], v[:, 2], v[:, 3], v[:, 4], v[:, 7] = np.arange(400), 1, 1, 8, 1  # NaN in each
        w.add_graph_traces("g", "loss/Log", 0, "FULL_HEALTH", v)
    during: list[int] = []  # collections started while the command ran (`_dispatch`)

    def seen(phase: str, info: dict[str, int]) -> None:
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_name != "_dispatch":
            frame = frame.f_back  # type: ignore[assignment]
        if phase == "start" and frame is not None:
            during.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(seen)
    try:
        assert main(["report", "--json", "--limit", "400", str(tmp_path)]) == 1
    finally:
        gc.callbacks.remove(seen)
    assert '"nan"' in capsys.readouterr().out  # it did report the alerts
    assert during == []
    assert gc.isenabled()
