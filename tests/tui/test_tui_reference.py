"""Pilot tests of the app on a real TensorFlow logdir of the reference bug (`tfdbg-tui demo`).

The logdir is written by TensorFlow itself (`reference_logdir` fixture: a tf.function
`cross_entropy` whose `tf.math.log(probs)` produces −∞). Every assertion is about what a user
sees or selects; the app is driven by keys only.
"""

from __future__ import annotations

import numpy as np
import pytest
from support.tui import follow_first_alert, settle, sync
from textual.command import CommandPalette
from textual.pilot import Pilot
from textual.widgets import Input

from reader import GRAPH, DebugLogdir
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.dialogs import HelpScreen
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf
SIZE = (200, 50)


def make_app(path: str) -> TfdbgApp:
    return TfdbgApp(DebugLogdir(path), follow=False)


def screen(app: TfdbgApp) -> MainScreen:
    assert app.main is not None
    return app.main


async def follow_first(app: TfdbgApp, pilot: Pilot) -> MainScreen:
    await follow_first_alert(app, pilot)
    return screen(app)


@sync
async def test_launch_focuses_alerts_with_first_alert(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        assert s.focused is s.alerts.vlist
        assert s.alerts.selected == 0
        kind, index, _ = s.alerts.selected_alert()
        L = app.state.logdir
        assert kind == GRAPH
        assert L.op_type_of_trace(index) == "Log"
        # the first alert is the earliest tensor with NaN/∞ in the whole run
        assert index == int(np.flatnonzero(L.traces.bad == 1)[0])


@sync
async def test_enter_follows_alert_to_log_op_and_source_line(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        s = await follow_first(app, pilot)
        L = app.state.logdir
        selected = s.ge.selected
        assert selected is not None
        assert L.op_type_of_trace(selected) == "Log"
        assert L.trace_name(selected) == "Log:0"
        # Source Code: the user's line, highlighted and centred
        assert "tf.math.log(probs)" in (s.source.highlighted_text or "")
        view = s.source.view
        middle = int(view.scroll_offset.y) + view.scrollable_content_region.height // 2
        assert abs(middle - (view.line - 1)) <= 1
        # Stack Trace: the user frame is selected, not TensorFlow's
        frame = s.stack.selected_frame
        assert frame is not None and frame.file.endswith("tf_program.py")
        assert frame.function == "cross_entropy"
        # Graph Structure lists the input probs:0
        assert any("probs:0" in line for line in s.structure.lines())


@sync
async def test_enter_on_input_selects_its_trace(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        s = await follow_first(app, pilot)
        log_row = s.ge.selected
        assert log_row is not None
        await pilot.press("4")
        assert s.focused is s.structure.vlist
        row = s.structure.rows[s.structure.vlist.cursor_index or 0]
        assert row.kind == "input" and "probs:0" in row.text.plain
        # resolved exactly through the function boundary, not guessed by content
        assert s.structure.inputs[0].argument and not s.structure.inputs[0].pending
        await pilot.press("enter")
        await settle(app, pilot)
        L = app.state.logdir
        assert s.ge.selected == row.trace
        assert s.ge.selected is not None and s.ge.selected < log_row
        # probs is the argument of cross_entropy: the caller's softmax output feeds it
        assert L.op_type_of_trace(s.ge.selected) == "Softmax"
        # Graph Structure now shows the Softmax op
        assert s.structure.lines()[0].startswith("Softmax")


@sync
async def test_inputs_of_selected_tensor_are_marked(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        s = await follow_first(app, pilot)
        L = app.state.logdir
        log_row = s.ge.selected
        assert log_row is not None and L.op_type_of_trace(log_row) == "Log"
        # the program: probs = tf.nn.softmax(logits) in train_step, then
        # cross_entropy(probs, labels) takes tf.math.log(probs) — Log's one input is the
        # caller's Softmax output of the same call, the latest Softmax trace before it
        softmax = max(i for i in range(log_row) if L.op_type_of_trace(i) == "Softmax")
        assert s.ge.vlist._marked == frozenset({softmax})
        assert log_row not in s.ge.vlist._marked  # the tensor itself is not its input


@sync
async def test_n_and_N_cycle_alerts(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        alerts = s.alerts.alerts
        await pilot.press("3")  # from any pane
        await pilot.press("n")
        await settle(app, pilot)
        assert s.alerts.selected == 1
        if int(alerts.kind[1]) == GRAPH:
            assert s.ge.selected == int(alerts.index[1])
        await pilot.press("n")
        await settle(app, pilot)
        assert s.alerts.selected == 2
        await pilot.press("N", "N")
        await settle(app, pilot)
        assert s.alerts.selected == 0
        assert s.ge.selected == int(alerts.index[0])


@sync
async def test_slash_filters_graph_executions(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        await pilot.press("3", "slash")
        assert isinstance(app.screen.query_one(Input), Input)
        app.screen.query_one(Input).value = "^(Log|Softmax)$"
        await pilot.press("enter")
        await pilot.pause()
        L = app.state.logdir
        types = [L.op_type_of_trace(i) for i in range(len(L.traces))]
        expected = [i for i, t in enumerate(types) if t in ("Log", "Softmax")
                    or L.trace_name(i).rsplit(":", 1)[0] in ("Log", "Softmax")]
        vl = s.ge.vlist
        assert vl.row_count == len(expected) > 0
        assert [vl.index_at(p) for p in range(vl.row_count)] == expected
        # a bad regex is refused with a message, the filter stays
        await pilot.press("slash")
        app.screen.query_one(Input).value = "(("
        await pilot.press("enter")
        await pilot.pause()
        assert "bad regex" in str(app.screen.query_one("#prompt-error").render())
        await pilot.press("escape")
        await pilot.pause()
        assert vl.row_count == len(expected)
        # empty clears
        await pilot.press("slash")
        app.screen.query_one(Input).value = ""
        await pilot.press("enter")
        await pilot.pause()
        assert vl.row_count == len(L.traces)


@sync
async def test_a_toggles_only_nan_rows(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        L = app.state.logdir
        n_bad = int(np.sum(L.traces.bad == 1))
        await pilot.press("3", "a")
        vl = s.ge.vlist
        assert 0 < vl.row_count == n_bad < len(L.traces)
        assert all(L.traces.bad[vl.index_at(p)] == 1 for p in range(vl.row_count))
        await pilot.press("a")
        assert vl.row_count == len(L.traces)


@sync
async def test_g_goes_to_index(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        await pilot.press("3", "g", "2", "0")  # typed into the prompt, not taken as keys
        assert app.screen.query_one(Input).value == "20"
        await pilot.press("enter")
        await settle(app, pilot)
        assert s.ge.selected == 20
        assert s.focused is s.ge.vlist
        # Graph Structure follows the selection once the cursor rests
        assert app.state.logdir.trace_name(20).split(":")[0] in s.structure.lines()[0]


@sync
async def test_z_zooms_focused_pane(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        await pilot.press("3", "z")
        assert s.maximized is s.ge
        assert not s.alerts.region.area  # the other panes are hidden
        await pilot.press("5")  # switching panes keeps the zoom, on the new pane
        assert s.maximized is s.source
        await pilot.press("z")
        assert s.maximized is None
        await pilot.pause()
        assert s.alerts.region.area > 0


@sync
async def test_question_mark_shows_help_from_live_bindings(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.plain_text()
        for phrase in ("Next alert", "Filter Alerts", "Go to an alert number",
                       "Zoom the focused pane", "Command palette"):
            assert phrase in help_text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


@sync
async def test_ctrl_p_opens_command_palette(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)


@sync
async def test_stack_f_hides_framework_frames(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        s = await follow_first(app, pilot)
        # by default the user's frames, each run of framework frames one row saying how many
        user = len(s.stack.shown)
        assert not any(s.stack.frames[k].is_framework for k in s.stack.shown)
        collapsed = [-k for k in s.stack.rows if k < 0]
        assert collapsed and sum(collapsed) + user == len(s.stack.frames)
        frame = s.stack.selected_frame
        assert frame is not None and frame.function == "cross_entropy"
        await pilot.press("6", "f")  # f shows them all
        assert len(s.stack.shown) == len(s.stack.frames) > user
        frame = s.stack.selected_frame
        assert frame is not None and frame.function == "cross_entropy"
        await pilot.press("f")
        assert len(s.stack.shown) == user


@sync
async def test_timeline_enter_on_function_call_jumps_to_its_first_trace(
        reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        s = screen(app)
        L = app.state.logdir
        calls = np.flatnonzero(L.executions.graph_id >= 0)
        assert len(calls) == 2
        await pilot.press("2")
        assert s.timeline.goto(int(calls[1]))
        await pilot.press("enter")
        await settle(app, pilot)
        first_of_second_call = s.ge.selected
        assert first_of_second_call is not None and first_of_second_call > 0
        # it starts the second call: the same op as the very first trace of the run
        assert L.trace_name(first_of_second_call) == L.trace_name(0)
        assert s.focused is s.ge.vlist


@sync
async def test_an_argument_shown_during_the_first_read_is_resolved_once_indexed(
        reference_logdir: str) -> None:
    """During the first read Graph Structure does not wait for the diagnosis (the reader is
    busy); once the read is done the op on screen gets its argument resolved exactly."""
    from dataclasses import replace

    app = make_app(reference_logdir)
    async with app.run_test(size=SIZE) as pilot:
        s = await follow_first(app, pilot)
        log_row = s.ge.selected
        assert log_row is not None
        done = app.state.snapshot
        app.state.snapshot = replace(done, indexing=True)  # as while the first read runs
        s.structure.show_trace(log_row)
        assert not s.structure.inputs[0].argument  # not walked while "indexing"
        assert s.structure.inputs[0].pending and s.structure.inputs[0].trace is None
        app.state.snapshot = done
        s.on_data(final=True)
        await settle(app, pilot)
        assert s.structure.inputs[0].argument and not s.structure.inputs[0].pending
