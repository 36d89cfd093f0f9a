"""Alerts: every NaN/∞ event, earliest first, with the diagnosis of the selected one.

Enter follows an alert (trace or eager op, structure, stack, source). The pane is three
mixins' work: its rows (`alert_rows`: time order or grouped by incident), its diagnosis line
(`alert_diagnosis`: walked in a worker, provisional while indexing), and here the summary
above them, the filter, the warnings and what happens as the run grows. The diagnosis and the
warnings wrap into the room there is; when that is not enough they end in "… i: all", and `i`
shows them whole (`ClampedText`).

Until the user chooses (`chosen`), the selection is the app's: the run's first alert, also
when an earlier one arrives late (a file read later; the screen follows it: `ui.first_alert`).
Once chosen, the user's alert is kept, by identity, as rows arrive before it.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.widgets import Static

from reader import GRAPH, Alerts
from reader.diagnosis import Diagnosis
from reader.diagnosis.functions import function_label
from tfdbg_tui.core import model
from tfdbg_tui.core.recorded import nothing_recorded
from tfdbg_tui.core.textutil import lit, shorten_parts
from tfdbg_tui.ui.bindings import ALERTS_KEYS, to_bindings
from tfdbg_tui.ui.clamped import ClampedText
from tfdbg_tui.ui.panes.alert_diagnosis import AlertDiagnosis
from tfdbg_tui.ui.panes.alert_rows import AlertRows
from tfdbg_tui.ui.panes.base import FollowAlert, ListPane
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.vlist import VirtualList


def origin_of(diagnosis: Diagnosis) -> tuple[int, int]:
    """(kind, index) of a diagnosis' origin."""
    return diagnosis.origin_kind, diagnosis.origin_index


class SummaryLine(Static):
    """The Alerts pane's summary: told to its pane whenever its size changes, which then
    checks that its height is what its text needs at the new width."""

    def on_resize(self, event: events.Resize) -> None:
        pane = self.parent
        if isinstance(pane, AlertsPane):
            pane.summary_resized()


@register_pane(1, "alerts", "Alerts", short="Alerts", area="top-left", keys=ALERTS_KEYS)
class AlertsPane(AlertRows, AlertDiagnosis, ListPane):
    """The alert list (grouped by incident: `AlertRows`), a summary line above it and the
    diagnosis line below it (`AlertDiagnosis`)."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(ALERTS_KEYS)]
    GOTO_WHAT = "alert number"
    GOTO_FIRST = 1  # alerts are numbered from 1 on screen

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._alerts = model.empty_alerts()
        self.filter_view: np.ndarray | None = None  # alert positions the filter keeps
        self.t0 = 0.0
        self.diagnosis: Diagnosis | None = None
        self.diagnosed: int | None = None  # the alert position `diagnosis` belongs to
        self.provisional = False  # the diagnosis shown was walked while indexing
        self._generation = 0  # of the latest diagnosis asked for (older results dropped)
        self._summary_text: Text | None = None  # the summary shown last
        self._message = ""  # the diagnosis' explanation shown last

    def compose(self) -> ComposeResult:
        yield SummaryLine(Text("indexing…", style="dim"), id="alerts-summary", markup=False)
        yield VirtualList(self.render_row, empty="", announce_initial=True, id="alerts-list")
        yield ClampedText(3, id="alerts-diagnosis")
        yield ClampedText(2, id="alerts-warnings")

    def on_mount(self) -> None:
        user = getattr(self.app, "user_keymap", None)  # TfdbgApp's (see core.keymap)
        key = (user.keys.get("alert.details") if user is not None else None) or "i"
        hint = f"{key.split(',')[0]}: all"
        for box in self.query(ClampedText):
            box.hint = hint

    @property
    def diagnosis_box(self) -> ClampedText:
        return self.query_one("#alerts-diagnosis", ClampedText)

    @property
    def warnings_box(self) -> ClampedText:
        return self.query_one("#alerts-warnings", ClampedText)

    def whole_text(self) -> Text:
        """The selected alert's whole diagnosis and every reader warning (the `i` screen)."""
        out = Text()
        alert = self.selected_alert()
        k = self.selected_incident()
        inc = self._groups.incident(k) if k is not None and self._groups is not None else None
        if inc is not None:
            out.append(f"Incident {inc.number}: {lit(function_label(inc.origin_name))}\n\n",
                       "bold")
            out.append_text(self.diagnosis_box.text)
            out.append("\n")
        if alert is not None and self.selected is not None:
            kind, index, slot = alert
            logdir = self.state.logdir
            name = (logdir.trace_name(index) if kind == GRAPH
                    else _eager_name(logdir.op_type_of_execution(index), slot, index))
            out.append(f"Alert {self.selected + 1}: {lit(name)}\n", "bold")
            j = self.journey()
            if j is not None and j.steps.count:
                s = self.step_at(self.selected)
                out.append(lit(j.steps.describe(s)) + "\n", "bold")
            out.append("\n")
            out.append_text(self.diagnosis_box.text)
            out.append("\n")
        j = self.journey()
        if j is not None and j.incidents.items:
            out.append(f"\n{lit(j.incidents_line())}\n", "bold")
        if j is not None and j.steps.count:
            out.append("\nNaN/∞ tensors (and loss) per training step\n", "bold")
            for line in j.strip(100):
                out.append(lit(line) + "\n")
        warnings = [] if self.state.snapshot.indexing else self.state.logdir.all_warnings()
        if warnings:
            out.append(f"\nWarnings ({len(warnings)})\n", "bold yellow")
            for w in warnings:
                out.append(f"⚠ {lit(w)}\n", "yellow")
        if not out.plain:
            out.append("no alert selected and no warnings", "dim")
        return out

    @property
    def alerts(self) -> Alerts:
        return self._alerts

    def on_journey(self) -> None:
        self.on_journey_found(self.state.journey)
        self.vlist.invalidate()
        self._summary()
        if self.diagnosed is not None and self.diagnosed == self.selected:
            self._draw_diagnosis()  # now with its step

    def selected_alert(self) -> tuple[int, int, int] | None:
        pos = self.selected
        if pos is None or pos >= len(self._alerts):
            return None
        a = self._alerts
        return int(a.kind[pos]), int(a.index[pos]), int(a.slot[pos])

    def on_data(self) -> None:
        snap = self.state.snapshot
        new = snap.alerts
        if new is self._alerts:
            self._summary()
            return
        before, pos, row = self.selected_alert(), self.selected, self.selected_row()
        wall = float(self._alerts.wall_time[pos]) if before is not None and pos is not None \
            else None
        vl = self.vlist
        k = self.selected_incident()  # on a header: kept, or its first alert
        head = self._groups.first_of(k) if k is not None and self._groups is not None \
            else None
        shown_before, t0 = self._shown_alerts(), self.t0
        grouped = self._groups is not None
        old, self._alerts = self._alerts, new
        self.t0 = self._first_wall()
        self.filter_view = self._compute_view()
        # grouped, the groups are kept (the new alerts apart) until found again; else
        # time order
        kept = self.keep_groups(old, new)
        if before is None and head is not None and not kept:
            pos = head
            before = (int(old.kind[pos]), int(old.index[pos]), 0)
            wall = float(old.wall_time[pos])
        keep = None
        if before is not None:  # where it was, or among the alerts of its time: no O(n)
            keep = model.alert_position(new, before[0], before[1], hint=pos, wall=wall)
        self.lay_out(appended=not grouped)  # redrawn below if need be
        first = None if self.chosen else self.first_shown()
        if first is not None and vl.select_index(first, center=False):
            pass  # the app's selection: the run's first alert, even if it arrived late
        elif keep is not None:  # same alert, wherever it sorts now
            vl.select_index(keep, center=False)
        elif kept and k is not None and self._groups is not None:  # the same header
            vl.select_index(self._groups.header(k), center=False, announce=False)
        if before is not None and self.selected_row() == row and self.selected_alert() != (
                before):
            self._diagnose()  # another alert on the same row: no Highlighted says so
        if not kept and self._shown_alerts() == shown_before and self.t0 == t0:
            vl.forget_hidden()  # the rows on screen are the same alerts: no redraw
        else:
            vl.invalidate()
        self._summary()

    def _shown_alerts(self) -> tuple[range, list[tuple[int, int]]]:
        """The positions on screen and the alerts (kind, index) there."""
        vl = self.vlist
        shown = vl.visible_positions()
        at = np.array(self.alert_rows_shown(shown), dtype=np.int64)
        a = self._alerts
        return shown, list(zip(np.asarray(a.kind[at]).tolist(),
                               np.asarray(a.index[at]).tolist(), strict=True))

    def _first_wall(self) -> float:
        logdir = self.state.logdir
        snap = self.state.snapshot
        walls = []
        if snap.traces:
            walls.append(float(logdir.traces.wall_time[0]))
        if snap.executions:
            walls.append(float(logdir.executions.wall_time[0]))
        return min(walls) if walls else 0.0

    def _compute_view(self) -> np.ndarray | None:
        if self.matcher is None:
            return None
        a, logdir = self._alerts, self.state.logdir
        ids = self.matcher.ids()
        graph = a.kind == GRAPH
        keep = np.zeros(len(a), dtype=bool)
        gi = a.index[graph]
        keep[graph] = (np.isin(logdir.traces.op_name[gi], ids)
                       | np.isin(logdir.traces.op_type[gi], ids))
        ei = a.index[~graph]
        keep[~graph] = np.isin(logdir.executions.op_type[ei], ids)
        return np.flatnonzero(keep)

    def refilter(self) -> None:
        self.filter_view = self._compute_view()
        self.lay_out()
        self.vlist.scroll_to_cursor()  # the view changed under it: keep the selection seen
        self._summary()

    def _summary(self) -> None:
        snap = self.state.snapshot
        text = model.alert_summary(self.state.logdir, self._alerts, snap.traces)
        g = self._groups
        if g is not None and g.items:
            n = len(g.items)  # which ones: the rows' headers and the `i` screen
            fresh = f" + {g.fresh:,} new not yet grouped" if g.fresh else ""
            text = f"{n} incident{'' if n == 1 else 's'}{fresh} · {text}"
        style = "bold #ff5f5f" if len(self._alerts) else "green"
        empty = None if snap.indexing else nothing_recorded(self.state.logdir, snap.executions,
                                                             snap.traces)
        if snap.indexing:
            # an alert found now may yet have an earlier one in the part not read
            text = f"indexing… earliest so far · {text}" if len(self._alerts) else "indexing…"
        elif empty is not None:  # no verdict on a run that recorded nothing
            text, style = "nothing was recorded (no TensorFlow op ran while dumping)", "yellow"
        self._set_summary(Text(lit(text), style=style))
        self._warnings(snap.indexing)
        n = len(self._alerts)
        shown = n if self.filter_view is None else len(self.filter_view)
        status = f"{n:,} alerts" if shown == n else f"{shown:,} of {n:,} alerts"
        extra = self.filter_status()
        self.set_status(f"{status} · {extra}" if extra else status)

    def _set_summary(self, text: Text) -> None:
        """The summary line (at most two lines). A layout of the screen only when the box's
        height on screen is not the one its text needs at its width (this runs on every
        progress snapshot, and a layout re-renders every pane); judged by the height the
        box has, not the one asked for last: a layout made against another width left a
        two-line summary one line high (`SummaryLine` re-checks on every width change)."""
        box, console = self.query_one("#alerts-summary", Static), self.app.console
        width = box.content_region.width
        self._summary_text = text  # (whole: a wider box shows more of it)
        if width > 0:  # what does not fit goes from the end, said by "…" (textutil)
            text = Text(shorten_parts(text.plain, lambda t: len(Text(t).wrap(
                console, width)) <= 2), style=text.style)
        lines = min(2, len(text.wrap(console, width))) if width > 0 else 0
        box.update(text, layout=not lines or lines != box.size.height)

    def summary_resized(self) -> None:
        """The summary box changed size: its text may need another number of lines."""
        if self._summary_text is not None:
            self._set_summary(self._summary_text)

    def _warnings(self, indexing: bool) -> None:
        """The reader's warnings (a full circular buffer, nothing recorded, damaged files):
        they can explain an empty or misleading alert list, so they are shown here."""
        found = [] if indexing else self.state.logdir.all_warnings()
        box = self.warnings_box
        box.display = bool(found)
        if found:
            more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
            box.update(Text(f"⚠{more} {lit(found[0])}", style="yellow"))

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        self._diagnose()

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        k = self.selected_incident()
        if k is not None:
            self.toggle_fold(k)  # Enter on an incident's header folds or unfolds it
            return
        self.post_message(FollowAlert(event.index))

    def goto(self, index: int) -> bool:
        """`g`: alert `index`, its incident unfolded."""
        if not 0 <= index < len(self._alerts):
            return False
        self.hold_selection()
        self.reveal(index)
        return super().goto(index)

    # ------------------------------------------------------------------ diagnosis
    def on_indexed(self) -> None:
        """The first read is done: a diagnosis walked before it is walked again."""
        super().on_indexed()
        if self.provisional and self.selected_alert() is not None:
            self._diagnose()


def _eager_name(op_type: str, slot: int, index: int) -> str:
    """An eager alert's tensor in the detail view: a tf.function call by its user's name,
    with TensorFlow's full name after it (it tells two traces of one function apart)."""
    label = function_label(op_type)
    full = f", {op_type}" if label != op_type else ""
    return f"{label}:{slot} (eager #{index}{full})"
