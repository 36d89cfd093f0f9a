"""Held-out cases (issue 30's acceptance): NaN, ±inf, ±1.7e308, the smallest subnormal and
-0.0 in every place a value is printed, plotted or exported — a training loop's loss (the
steps strip of `report`, `diff`'s loss lines, the app's loss plot in compare mode), tensor
values (`report --values`), `export`'s tables and CSV.

The runs are forged eager training loops (the TensorFlow-free writer), the smallest the step
model recognises: read w, y = x @ w, loss = Σy, a gradient, w -= lr·g — the loss recorded as
the extreme values below, in float64.

Expected, written before the run: no traceback; exit 0/1 (never 2: nothing is unreadable);
`--json` strict JSON (no NaN/Infinity constants); the app's loss plot shown (not dropped)
with a mark for each step; `export` writes its tables and CSV.
"""

from __future__ import annotations

import asyncio
import csv
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hostile.checks import HANG_GUARD, child_env, strict_json
from support.paths import ROOT
from support.slowdown import WAIT
from support.tui import settle, sync

from dumper.writer import LogdirWriter
from reader import DebugLogdir

BIG = 1.7e308
LOSSES = {
    "overflowing": [BIG, -BIG, BIG, -BIG, BIG],
    "non-finite": [float("nan"), float("inf"), -float("inf"), 1.0, float("nan")],
    "tiny": [5e-324, -5e-324, -0.0, 0.0, 1e-308],
    "mixed": [1.0, BIG, float("inf"), 5e-324, float("nan")],
}
HANDLE = 7


def forge(path: Path, losses: list[float]) -> str:
    """len(losses) eager steps whose loss (`Sum`) is recorded as `losses[k]` (float64);
    the weights themselves ±1.7e308 and NaN in places, so `--values` meets them too."""
    w = np.array([[BIG, -BIG], [np.nan, 5e-324]], np.float64)
    x = np.array([[1.0, 2.0], [3.0, 4.0]], np.float64)
    with LogdirWriter(path, overwrite=True, run_id="xtrm0001", file_timestamp=1) as wr:
        f = wr.add_source_file("/site-packages/tensorflow/python/eager/backprop.py", ["pass"])
        backward = [wr.add_stack_frame(f, 1, "gradient")]
        o = wr.add_source_file("/site-packages/keras/src/optimizers/sgd.py", ["pass"])
        optimizer = [wr.add_stack_frame(o, 1, "update_step")]
        clock = iter(range(1_000, 2_000))
        tid = 100

        def ex(op: str, tensors: list[Any], **kw: Any) -> None:
            wr.add_execution(op, "FULL_TENSOR", tensors, wall_time=float(next(clock)), **kw)

        with np.errstate(all="ignore"):
            for loss in losses:
                ex("ReadVariableOp", [w.copy()], input_tensor_ids=[HANDLE],
                   output_tensor_ids=[tid])
                y = x @ w
                ex("MatMul", [y], input_tensor_ids=[50, tid], output_tensor_ids=[tid + 1])
                ex("Sum", [np.array(loss, np.float64)], input_tensor_ids=[tid + 1, 51],
                   output_tensor_ids=[tid + 2])
                g = x.T @ np.ones((2, 2))
                ex("MatMul", [g], input_tensor_ids=[50, 53], output_tensor_ids=[tid + 3],
                   stack_frame_ids=backward)
                lr = np.array(0.01, np.float64)
                ex("Identity", [lr], input_tensor_ids=[54], output_tensor_ids=[tid + 4])
                ex("Mul", [lr * g], input_tensor_ids=[tid + 3, tid + 4],
                   output_tensor_ids=[tid + 5], stack_frame_ids=optimizer)
                ex("AssignSubVariableOp", [], input_tensor_ids=[HANDLE, tid + 5],
                   output_tensor_ids=[], stack_frame_ids=optimizer)
                w = w - lr * g
                tid += 10
    return str(path)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("held-out-values")
    out = {name: forge(root / name, losses) for name, losses in LOSSES.items()}  # ~10 ms each
    out["plain"] = forge(root / "plain", [4.0, 3.0, 2.0, 1.5, 1.0])
    return out


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], capture_output=True,
                          text=True, cwd=ROOT, env=child_env(), timeout=HANG_GUARD)
    assert "Traceback" not in proc.stderr, proc.stderr[-3000:]
    assert all(ln.startswith("tfdbg-tui") for ln in proc.stderr.splitlines()), proc.stderr
    assert proc.returncode in (0, 1), (proc.returncode, proc.stderr)
    return proc


@pytest.mark.parametrize("name", ["non-finite", "mixed"])
def test_report_prints_and_json_holds_extreme_losses(runs: dict[str, str], name: str) -> None:
    human = cli("report", "--values", runs[name])
    assert "loss" in human.stdout, human.stdout[-2000:]
    data = strict_json(cli("report", "--json", "--values", runs[name]).stdout)
    states = [s.get("loss_state") for s in data["steps"]["per_step"]]
    assert len(states) == len(LOSSES[name]), data["steps"]
    for value, state in zip(LOSSES[name], states, strict=True):
        if np.isnan(value):
            assert state == "nan", (value, state)
        elif np.isinf(value):
            assert state == ("inf" if value > 0 else "-inf"), (value, state)
        else:
            assert state == "value", (value, state)


@pytest.mark.parametrize("name", ["overflowing", "tiny"])
def test_diff_against_a_plain_run(runs: dict[str, str], name: str, tmp_path: Path) -> None:
    """Human lines (the loss strip of both runs), strict JSON, and a CSV that reads back."""
    human = cli("diff", runs[name], runs["plain"])
    assert any(ln.strip().startswith("loss A") for ln in human.stdout.splitlines()), (
        human.stdout[-2000:])
    strict_json(cli("diff", "--json", runs[name], runs["plain"]).stdout)
    cli("diff", runs[name], runs["plain"], "--csv", str(tmp_path / "d.csv"))
    with open(tmp_path / "d.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert rows and rows[0][0] == "step", rows[:2]


@pytest.mark.parametrize("name", ["mixed"])
def test_export_of_extreme_values(runs: dict[str, str], name: str, tmp_path: Path) -> None:
    import pyarrow.parquet as pq

    cli("export", runs[name], str(tmp_path / "pq"))
    assert pq.read_table(tmp_path / "pq" / "executions.parquet").num_rows == 7 * 5
    strict_json((tmp_path / "pq" / "report.json").read_text())
    cli("export", runs[name], str(tmp_path / "csv"), "--format", "csv")
    with open(tmp_path / "csv" / "executions.csv", newline="") as f:
        assert len(list(csv.reader(f))) == 1 + 7 * 5


@pytest.mark.parametrize("name", ["overflowing"])
@sync
async def test_the_apps_loss_plot_is_shown_for_extreme_losses(runs: dict[str, str],
                                                               name: str) -> None:
    """Compare mode on a run with extreme losses: the plot under the header is shown, one
    row per run (before round 4, ±1.7e308 silently removed it)."""
    from tfdbg_tui.ui.app import TfdbgApp

    app = TfdbgApp(DebugLogdir(runs[name]), follow=False,
                   compare_with=DebugLogdir(runs["plain"]))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        assert app.main is not None
        plot = app.main.query_one("#compare-plot")
        assert plot.display, "the loss plot is hidden"
        rows = str(plot.render()).splitlines()
        for key in ("i",):  # the journey (steps strip) of the run
            await pilot.press(key)
            await settle(app, pilot)
    assert any(" A " in r for r in rows) and any(" B " in r for r in rows), rows
    assert app.return_code in (None, 0)
