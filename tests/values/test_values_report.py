"""`report --json --values`, the inspector in health/SHAPE/NO_TENSOR modes, and `v` in the app."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from support.slowdown import WAIT
from support.tui import workers_done
from support.values import (
    Host,
    expected_stats,
    inputs,
    open_values,
    sync,
    trace_index,
    widget_text,
)

from reader import GRAPH, DebugLogdir
from tfdbg_tui.commands import report
from tfdbg_tui.ui.inspector.inspector import ValueInspector
from tfdbg_tui.ui.inspector.panels import HealthBar

SIZE = (120, 40)


def run_report(args: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    status = report.main(args)
    out = capsys.readouterr().out
    assert status == 1, out  # alerts found
    return json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))


def test_report_json_values_match_numpy(values_logdir: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_report([values_logdir, "--json", "--values", "--limit", "20"], capsys)
    alerts = rep["first_alerts"]
    assert isinstance(alerts, list)
    by_name = {a["op_name"]: a for a in alerts if a["kind"] == "graph"}
    for name in ("floats", "rank4", "big"):
        v = by_name[name]["values"]
        src = inputs()[name]
        exp = expected_stats(src)
        assert v["shape"] == list(src.shape) and v["size"] == src.size
        assert v["dtype"] == "float32" and v["nan"] == exp["n_nan"]
        assert (v["neg_inf"], v["pos_inf"]) == (exp["n_neg_inf"], exp["n_pos_inf"])
        assert (v["negative"], v["zero"], v["positive"]) == (exp["n_neg"], exp["n_zero"],
                                                              exp["n_pos"])
        for key in ("min", "max", "mean", "std"):
            assert v[key] == pytest.approx(exp[key], rel=1e-6), (name, key)
        bad = np.argwhere(~np.isfinite(src))[0]
        assert v["first_nonfinite"] == [int(i) for i in bad]
        assert sum(v["histogram"]["counts"]) == exp["n_finite"]
    eager = [a for a in alerts if a["kind"] == "eager"]
    assert eager and all("values" in a for a in eager)


def test_report_without_values_flag_adds_nothing(values_logdir: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rep = run_report([values_logdir, "--json", "--limit", "3"], capsys)
    assert all("values" not in a for a in rep["first_alerts"])


def test_report_human_values_line(values_logdir: str,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert report.main([values_logdir, "--values", "--limit", "2"]) == 1
    out = capsys.readouterr().out
    assert "values: float32[6, 7]" in out and "first NaN/∞ at [1, 2]" in out


# ------------------------------------------------------------------ other modes
@pytest.fixture(scope="module")
def function_logdirs(make_tf_logdir: Callable[..., str]) -> dict[str, DebugLogdir]:
    """tf_program's `function` kind: Reciprocal of [2, 0, 6] → [0.5, +∞, 1/6]."""
    return {m: open_values(make_tf_logdir("function", m))
            for m in ("FULL_HEALTH", "SHAPE", "NO_TENSOR")}


def reciprocal() -> np.ndarray:
    with np.errstate(divide="ignore"):
        return 1.0 / (np.array([1.0, 0.0, 3.0], np.float32) * 2.0)


async def show(logdir: DebugLogdir, index: int) -> str:
    app = Host(lambda: ValueInspector(logdir, GRAPH, index, 0))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ValueInspector) and screen.error is None
        text = widget_text(screen.query_one("#vi-message"))
        assert not screen.query_one("#vi-grid").display  # no values to lay out
        await pilot.press("s")  # nothing to save: says so, does not crash
        await pilot.pause()
        assert screen.saved_path is None
        return text


@sync
async def test_health_bar_counts(function_logdirs: dict[str, DebugLogdir]) -> None:
    L = function_logdirs["FULL_HEALTH"]
    r = reciprocal()
    text = await show(L, trace_index(L, "Reciprocal:0"))
    n_pos, n_inf = int((r[np.isfinite(r)] > 0).sum()), int(np.isposinf(r).sum())
    assert f"+ {n_pos} ({100 * n_pos / 3:.3g}%)" in text
    assert f"+∞ {n_inf} ({100 * n_inf / 3:.3g}%)" in text
    assert "NaN 0 (0%)" in text and "FULL_TENSOR" in text  # and how to record values
    assert "█" in text


def test_health_bar_shares_sum_to_width() -> None:
    bar = HealthBar({"neg": 1, "zero": 0, "pos": 997, "neg_inf": 1, "pos_inf": 0, "nan": 1},
                    1000)
    from support.values import renderable_text

    first = renderable_text(bar, 60).splitlines()[0]
    assert first.count("█") == 60  # tiny shares still get a cell; the total stays bounded


@sync
async def test_shape_and_no_tensor_modes(function_logdirs: dict[str, DebugLogdir]) -> None:
    L = function_logdirs["SHAPE"]
    text = await show(L, trace_index(L, "Reciprocal:0"))
    assert "shape  [3]" in text and "float32" in text and "SHAPE" in text
    L = function_logdirs["NO_TENSOR"]
    text = await show(L, trace_index(L, "Reciprocal:0"))
    assert "No values were recorded" in text
    assert 'tensor_debug_mode="FULL_TENSOR"' in text and "--mode FULL_TENSOR" in text


# ------------------------------------------------------------------ the real app
@sync
async def test_v_in_the_app_opens_the_inspector_on_the_first_alert(values_logdir: str) -> None:
    app_mod = pytest.importorskip("tfdbg_tui.ui.app")
    app = app_mod.TfdbgApp(DebugLogdir(values_logdir), follow=False)
    async with app.run_test(size=(200, 50)) as pilot:
        await asyncio.wait_for(app.indexed.wait(), WAIT)
        await workers_done(app)
        await pilot.pause()
        main = app.screen
        await pilot.press("v")
        await pilot.pause()
        await workers_done(app)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ValueInspector), type(screen)
        assert screen.loaded is not None and screen.loaded.stats is not None
        L = app.state.logdir
        first = L.alerts()
        assert (screen.kind, screen.index) == (int(first.kind[0]), int(first.index[0]))
        name = L.trace_name(screen.index).split(":")[0]
        assert screen.loaded.stats.size == inputs()[name].size
        await pilot.press("n")  # the inspector's key, not the app's "next alert"
        assert screen.query_one("#vi-grid").mark is not None  # type: ignore[attr-defined]
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is main
