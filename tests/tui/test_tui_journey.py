"""The app on the NaN journey: the header says which training step went bad, every alert row
its step, the Alerts summary how many incidents, `i` the per-step strip.

On tests/programs/step_program.py's runs, whose first NaN/∞ is in a step known by
construction (one bad batch fed at a chosen step), in eager, tf.function and fit forms.
"""

from __future__ import annotations

import pytest
from support.step_runs import RUNS, step_logdir
from support.tui import settle, sync
from textual.widgets import Static

from reader import DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp

pytestmark = pytest.mark.tf


def _text(widget: Static) -> str:
    return str(widget.visual)


@pytest.mark.parametrize("form", ["eager", "function", "fit"])
@sync
async def test_header_and_rows_say_the_step(tmp_path_factory: pytest.TempPathFactory,
                                            form: str) -> None:
    bad, n = RUNS[form]
    app = TfdbgApp(DebugLogdir(step_logdir(tmp_path_factory, form)), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        header = _text(s.query_one("#header-line", Static))
        assert f"first NaN at step {bad} of {n} (steps 0–{n - 1})" in header  # from 0
        alerts = s.alerts
        first_row = alerts.render_row(0, 60).plain
        assert f" s{bad} " in first_row
        assert alerts.diagnosis_box.plain.startswith(f"step {bad}: ")  # the diagnosis too
        summary = _text(s.query_one("#alerts-summary", Static))
        incidents = app.state.journey.incidents.items
        assert incidents
        word = "incident" if len(incidents) == 1 else "incidents"
        assert summary.startswith(f"{len(incidents)} {word} · ")
        # `i`: the step of the selected alert in words, and the strip around the bad step
        whole = alerts.whole_text().plain
        assert f"step {bad} of {n} (" in whole
        strip = whole.split("per training step\n", 1)[1].splitlines()
        steps_line, counts_line = strip[0].split()[1:], strip[1].split()[1:]
        assert steps_line == [str(k) for k in range(n)]
        assert counts_line[:bad] == ["0"] * bad and counts_line[bad] != "0"


@pytest.mark.parametrize("form", ["function"])
@sync
async def test_a_later_alerts_diagnosis_says_the_step_its_origin_was_born_in(
        tmp_path_factory: pytest.TempPathFactory, form: str) -> None:
    """The last alert is steps after the bad one and its NaN came from there: the line
    says both steps, not only the alert's before the origin's words."""
    bad, _ = RUNS[form]
    app = TfdbgApp(DebugLogdir(step_logdir(tmp_path_factory, form)), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        alerts = app.main.alerts  # type: ignore[union-attr]
        steps = app.state.journey.steps  # type: ignore[union-attr]
        await pilot.press("end")
        await settle(app, pilot)
        last = alerts.step_at(alerts.selected)
        d = alerts.diagnosis
        assert d is not None and last is not None
        born = steps.step_of(d.origin_kind, d.origin_index)
        assert born is not None and bad <= born < last  # else this proves nothing
        assert alerts.diagnosis_box.plain.startswith(f"step {last}, born at step {born}: ")


@sync
async def test_no_training_steps_says_nothing_of_steps(make_tf_logdir) -> None:  # type: ignore[no-untyped-def]
    app = TfdbgApp(DebugLogdir(make_tf_logdir("eager")), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = app.main
        assert s is not None
        assert app.state.journey is not None  # computed, and found no steps
        assert "step" not in _text(s.query_one("#header-line", Static))
        assert " s0 " not in s.alerts.render_row(0, 60).plain


@sync
async def test_following_a_graph_alert_moves_the_timeline_to_its_step_call(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    bad, _ = RUNS["function"]
    app = TfdbgApp(DebugLogdir(step_logdir(tmp_path_factory, "function")), follow=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)  # the first alert is followed at launch
        s = app.main
        assert s is not None and app.state.journey is not None
        calls = app.state.journey.steps.calls
        assert calls is not None
        assert s.timeline.selected == int(calls[bad])  # the train_step call of step `bad`
        assert s.current_pane() is s.alerts  # moved, not focused
        await pilot.press("n")  # the next alert (the same step): still that call
        await settle(app, pilot)
        assert s.timeline.selected == int(calls[bad])
