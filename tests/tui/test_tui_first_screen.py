"""The first minute with the app, as a new user meets it (issue 19): what the first screen
shows must be right, whole and legible.

Logdirs are written by TensorFlow (`reference_logdir`: the tutorial's MLP whose hand-written
cross entropy takes log(0)), so every expectation below is about a real run: the first
alert is the `Log` op, its input `probs` is the caller's `Softmax:0`, and `labels` comes
from the eager caller (nothing traced it). What the screen shows is read back from the
widgets' rendered lines — what a user sees — not from the code that filled them.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from rich.text import Text
from support.tui import record_notifications, settle, sync, workers_done
from textual.command import CommandPalette
from textual.geometry import Region
from textual.widget import Widget
from textual.widgets._footer import FooterKey

from reader import GRAPH, DebugLogdir
from reader.diagnosis import diagnose
from tfdbg_tui.ui.app import TfdbgApp
from tfdbg_tui.ui.main_screen import MainScreen

pytestmark = pytest.mark.tf


def make_app(path: str, **kw: Any) -> TfdbgApp:
    return TfdbgApp(DebugLogdir(path), follow=False, **kw)


def screen(app: TfdbgApp) -> MainScreen:
    assert app.main is not None
    return app.main


def shown(widget: Widget) -> list[str]:
    """The lines a widget draws on screen right now (border included)."""
    w, h = widget.outer_size
    return [strip.text for strip in widget.render_lines(Region(0, 0, w, h))]


def footer_text(app: TfdbgApp) -> str:
    """The keys the footer shows inside the screen."""
    width = app.size.width
    return "  ".join(k.render().plain for k in app.screen.query(FooterKey)
                     if k.region.width and k.region.right <= width)


def words(text: str) -> str:
    return " ".join(text.split())


def first_alert_row(app: TfdbgApp) -> int:
    L = app.state.logdir
    return int(np.flatnonzero(L.traces.bad == 1)[0])


# ---------------------------------------------------------------- 10: the first view is full
@sync
async def test_launch_shows_the_first_alert_followed_without_a_key(reference_logdir: str
                                                                   ) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        log_row = first_alert_row(app)
        assert s.focused is s.alerts.vlist  # the keys are still on Alerts
        assert s.ge.selected == log_row  # Graph Executions on the Log tensor
        vl = s.ge.vlist
        top = int(vl.scroll_offset.y)
        assert top <= log_row < top + vl.scrollable_content_region.height  # and in view
        assert s.structure.lines()[0].startswith("Log")  # its op
        frame = s.stack.selected_frame  # the user's frame of its stack
        assert frame is not None and frame.function == "cross_entropy"
        assert "tf.math.log(probs)" in (s.source.highlighted_text or "")  # the line
        # Source Code says what that line is (not just "a frame of the stack")
        assert str(s.source.border_subtitle).startswith("line to change (diagnosis) · ")


# ---------------------------------------------------------------- 1: no race on first open
@sync
async def test_a_diagnosis_walked_while_indexing_is_provisional_then_replaced(
        reference_logdir: str) -> None:
    """Moving through alerts during the first read gives a diagnosis of a partial index: it
    must say so, and what stays is what the finished index says."""
    app = make_app(reference_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        box = s.alerts.diagnosis_box
        L = app.state.logdir
        expected = diagnose(L, GRAPH, first_alert_row(app), 0).explanation
        assert words(expected) in words(box.plain) and "provisional" not in box.plain
        done = app.state.snapshot
        app.state.snapshot = replace(done, indexing=True, done_bytes=1, total_bytes=2)
        await pilot.press("n", "N")  # to the second alert and back, "while indexing"
        await workers_done(app)
        await pilot.pause()
        assert box.plain.startswith("provisional")
        app.state.snapshot = done  # the first read ends
        s.on_data(final=True)
        await settle(app, pilot)
        assert not box.plain.startswith("provisional")
        assert words(expected) in words(box.plain)


@sync
async def test_a_provisional_result_arriving_after_indexing_is_walked_again(
        reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        done = app.state.snapshot
        app.state.snapshot = replace(done, indexing=True)
        await pilot.press("n", "N")
        app.state.snapshot = done  # indexing ends, maybe while that walk still runs
        s.on_data(final=True)
        await settle(app, pilot)
        assert s.alerts.diagnosis_box.plain
        assert not s.alerts.diagnosis_box.plain.startswith("provisional")


# ---------------------------------------------------------------- 2: never cut silently
@sync
async def test_a_diagnosis_too_long_for_the_pane_ends_in_a_key_that_shows_it_whole(
        reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        L = app.state.logdir
        expected = words(diagnose(L, GRAPH, first_alert_row(app), 0).explanation)
        on_screen = [line.rstrip() for line in shown(s.query_one("#alerts-diagnosis"))
                     if not line.startswith("─")]  # the rule above it
        text = words(" ".join(on_screen))
        text = re.sub(r"^step \d+: ", "", text)  # the alert's training step comes first
        assert on_screen, "the diagnosis is not shown at all"
        if expected not in text:  # cut: then visibly, with the key that shows it all
            assert on_screen[-1].endswith("… i: all"), on_screen
            kept = text.removesuffix("… i: all").rstrip()
            assert expected.startswith(kept[: len(kept) - 2])
        await pilot.press("i")
        await pilot.pause()
        body = app.screen.query_one("#text-body")
        assert expected in words(body.render().plain if isinstance(body.render(), Text)
                                 else str(body.render()))
        await pilot.press("escape")
        assert app.screen is s


@sync
async def test_the_palette_offers_the_whole_diagnosis(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"whole diagnosis")
        await workers_done(app)
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen.query("#text-body")


# ---------------------------------------------------------------- 3: `a` keeps the cursor seen
@sync
async def test_only_nan_rows_keeps_the_selection_on_screen(demo_logdir: str) -> None:
    """In the demo the first alert (Log, step 1) sits some 120 rows down Graph Executions;
    `a` leaves only NaN/∞ rows, where it is near the top: the view must follow it."""
    app = make_app(demo_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        await pilot.press("enter")  # follow the first alert (already done at launch)
        await settle(app, pilot)
        log_row = first_alert_row(app)
        assert s.ge.selected == log_row
        await pilot.press("3", "a")
        await pilot.pause()
        vl = s.ge.vlist
        assert vl.cursor_index == log_row  # the same tensor stays selected
        pos = vl.position_of(log_row)
        assert pos is not None
        top = int(vl.scroll_offset.y)
        assert top <= pos < top + vl.scrollable_content_region.height


# ---------------------------------------------------------------- 6: no guess shown as fact
@sync
async def test_an_unresolved_function_argument_is_not_shown_as_a_tensor(
        reference_logdir: str) -> None:
    """`labels` reaches cross_entropy from the eager caller of train_step: no trace holds
    it. Graph Structure of `mul` (labels * log(probs)) must not name a tensor for it."""
    app = make_app(reference_logdir)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        L = app.state.logdir
        log_row = first_alert_row(app)
        mul = next(i for i in range(log_row + 1, len(L.traces))
                   if L.op_type_of_trace(i) == "Mul" and L.trace_name(i).startswith("mul"))
        s.show_trace(mul)
        await settle(app, pilot)
        line = next(t for t in s.structure.lines() if t.startswith("← labels:0"))
        assert "Softmax" not in line and "#" not in line
        assert "unknown" in line or "inferred" in line


# ---------------------------------------------------------------- 11: counts first
@sync
async def test_alert_rows_show_their_counts_at_120_columns(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        L = app.state.logdir
        a = s.alerts.alerts
        lines = shown(s.alerts.vlist)
        top = int(s.alerts.vlist.scroll_offset.y)
        assert len(lines) >= 5
        for y, line in enumerate(lines[:8]):
            if top + y >= s.alerts.vlist.row_count:
                continue
            pos = s.alerts.vlist.index_at(top + y)  # alerts are grouped by incident
            if not s.alerts.is_alert_row(pos) or int(a.kind[pos]) != GRAPH:
                continue
            h = L.traces.health(int(a.index[pos]))
            for label, n in (("NaN", h.nan), ("−∞", h.neg_inf), ("+∞", h.pos_inf)):
                if n > 0:
                    assert f"{label} {n:,}" in line, line
            name = L.trace_name(int(a.index[pos]))
            assert name in line or "…" in line  # whole, or visibly shortened


# ---------------------------------------------------------------- 12: focus is visible
@sync
async def test_the_focused_pane_and_its_cursor_look_different(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        focused, other = s.alerts, s.ge
        assert focused.styles.border_top[0] != other.styles.border_top[0]

        def cursor_bg(pane: Any) -> object:
            vl = pane.vlist
            pos = vl.position_of(vl.cursor_index)
            strip = vl.render_line(pos - int(vl.scroll_offset.y))
            return {seg.style.bgcolor for seg in strip if seg.style and seg.text.strip()
                    and seg.text.strip()[0].isalnum()}

        bg_focused, bg_blurred = cursor_bg(focused), cursor_bg(other)
        assert bg_focused and bg_blurred and not bg_focused & bg_blurred


# ---------------------------------------------------------------- 13: compare mode stays seen
@sync
async def test_compare_mode_is_in_the_header_and_its_keys_in_the_footer(
        reference_logdir: str) -> None:
    app = TfdbgApp(DebugLogdir(reference_logdir), follow=False,
                   compare_with=DebugLogdir(reference_logdir))
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        await app.compared.wait()
        await pilot.pause()
        s = screen(app)
        header = " ".join(shown(s.query_one("#header-line")))
        assert "vs B" in header and "equivalent" in header  # a run against itself
        footer = footer_text(app)
        assert "d/D" in footer and " b " in footer


@sync
async def test_without_compare_d_says_why(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    said = record_notifications(app)
    async with app.run_test(size=(200, 50)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        assert "d/D" not in footer_text(app) and s is app.screen
        before = len(said)
        await pilot.press("d")
        await pilot.pause()
        assert len(said) == before + 1
        assert "--compare" in said[-1]


# ---------------------------------------------------------------- 14a: the header is never cut
@pytest.mark.parametrize("size", [(160, 45), (120, 32), (80, 24)])
@sync
async def test_the_header_keeps_alert_count_and_state_at_every_size(
        reference_logdir: str, size: tuple[int, int]) -> None:
    long_path = "/mnt/cluster/experiments/2026-11-25/transformer-large/run-17/tfdbg2_logdir"
    app = make_app(reference_logdir, display_path=long_path)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        s = screen(app)
        n = len(app.state.snapshot.alerts)
        header = shown(s.query_one("#header-line"))[0]
        assert f"{n:,} alerts" in header and "● read" in header, header
        footer = footer_text(app)
        assert "help" in footer and "quit" in footer, footer


# ---------------------------------------------------------------- 9: Ctrl+C quits
@sync
async def test_ctrl_c_quits(reference_logdir: str) -> None:
    app = make_app(reference_logdir)
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(app, pilot)
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app._exit


# ---------------------------------------------------------------- 7: nothing recorded
@sync
async def test_a_run_that_recorded_nothing_says_so(make_tf_logdir: Any) -> None:
    """The program turned dumping on and ran no TensorFlow op: no verdict on NaN/∞."""
    app = make_app(make_tf_logdir("noop", "FULL_HEALTH"))
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        pane = " ".join(line for w in (s.query_one("#alerts-summary"), s.alerts.vlist)
                        for line in shown(w))
        assert "nothing was recorded" in pane
        assert "no NaN" not in pane


# ---------------------------------------------------------------- 8: our own frames hide
@sync
async def test_the_wrappers_frames_of_tfdbg_tui_run_are_not_shown(demo_logdir: str) -> None:
    """Recorded through `tfdbg-tui run -- -m …`: the stack starts in runpy and our CLI.
    They are not the user's code: never shown, and `f` leaves only the program's frames
    (`test_tui_wrapper_frames.py` does the same for `run -- python prog.py`)."""
    app = make_app(demo_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        await pilot.press("enter")  # follow the first alert (already done at launch)
        await settle(app, pilot)
        assert s.stack.frames
        files = [f.file for f in s.stack.frames]
        assert s.stack.omitted >= 3  # the CLI, the wrapper, runpy: recorded, left out
        assert not any("runpy" in f or "tfdbg_tui" in f for f in files), files
        left = [s.stack.frames[k].file for k in s.stack.shown]  # the user's, by default
        assert left and all("nan_mlp.py" in f for f in left), left


@sync
async def test_the_stack_status_says_how_many_wrapper_frames_are_left_out_at_160_columns(
        demo_logdir: str) -> None:
    """The Stack Trace pane's status is where a user learns that frames were left out (the
    CLI's, runpy's): at 160 columns it was cut before saying so."""
    app = make_app(demo_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        s = screen(app)
        omitted = s.stack.omitted
        assert omitted >= 3
        bottom = words(shown(s.stack)[-1])
        clause = next(c for c in str(s.stack.border_subtitle).split(" · ") if "tfdbg-tui" in c)
        assert str(omitted) in clause
        assert words(clause) in bottom, bottom  # whole, not cut by the border


@sync
async def test_the_footer_says_what_i_does_on_graph_structure(demo_logdir: str) -> None:
    """`i` shows the diagnosis whole in general ("why"), but on Graph Structure it shows the
    pane's rows whole: the footer there must say so, not offer a "why" it does not give."""
    app = make_app(demo_logdir)
    async with app.run_test(size=(160, 45)) as pilot:
        await settle(app, pilot)
        assert " i why " in f" {words(footer_text(app))} "  # on Alerts: the diagnosis
        await pilot.press("4")  # Graph Structure
        await pilot.pause()
        footer = f" {words(footer_text(app))} "
        assert " i why " not in footer, footer
        assert " i whole lines " in footer, footer
        await pilot.press("i")
        await pilot.pause()
        assert getattr(app.screen, "title_text", None) == "Graph Structure"  # what i opened
