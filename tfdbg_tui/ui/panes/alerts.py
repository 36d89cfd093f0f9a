"""Alerts: every NaN/∞ event, earliest first, with a one-line diagnosis of the selected one.

Enter follows an alert (trace or eager op, structure, stack, source). The diagnosis comes
from `reader.diagnosis.diagnose`; it runs in a worker because it may walk many rows, and a
stale result is dropped if the selection moved on.
"""

from __future__ import annotations

import numpy as np
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.widgets import Static
from textual.worker import get_current_worker

from reader import GRAPH, Alerts, ReaderError
from reader.diagnosis import Diagnosis, diagnose
from tfdbg_tui.core import model
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.fix_actions import DiagnosisReady
from tfdbg_tui.ui.panes.base import FollowAlert, ListPane
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.render import alert_row
from tfdbg_tui.ui.vlist import VirtualList


def origin_of(diagnosis: Diagnosis) -> tuple[int, int]:
    """(kind, index) of a diagnosis' origin."""
    return diagnosis.origin_kind, diagnosis.origin_index


@register_pane(1, "alerts", "Alerts", short="Alerts", area="top-left")
class AlertsPane(ListPane):
    """The alert list, a summary line above it and the diagnosis line below it."""

    GOTO_WHAT = "alert number"
    GOTO_FIRST = 1  # alerts are numbered from 1 on screen

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self._alerts = model.empty_alerts()
        self._view: np.ndarray | None = None
        self._t0 = 0.0
        self.diagnosis: Diagnosis | None = None
        self.diagnosed: int | None = None  # the alert position `diagnosis` belongs to

    def compose(self) -> ComposeResult:
        yield Static(Text("indexing…", style="dim"), id="alerts-summary", markup=False)
        yield VirtualList(self._row, empty="no NaN/∞ found (yet)",
                          announce_initial=True, id="alerts-list")
        yield Static(Text(""), id="alerts-diagnosis", markup=False)
        yield Static(Text(""), id="alerts-warnings", markup=False)

    @property
    def alerts(self) -> Alerts:
        return self._alerts

    def _row(self, pos: int, width: int) -> Text:
        a = self._alerts
        return alert_row(self.state.logdir, pos, int(a.kind[pos]), int(a.index[pos]),
                         int(a.slot[pos]), self._t0, float(a.wall_time[pos]), width)

    @property
    def selected(self) -> int | None:
        """Position of the selected alert in the sorted list."""
        return self.vlist.cursor_index

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
        before = self.selected_alert()
        self._alerts = new
        self._t0 = self._first_wall()
        self._view = self._compute_view()
        vl = self.vlist
        keep = None
        if before is not None:
            keep = model.alert_position(new, before[0], before[1])
        vl.set_rows(len(new), self._view, content_changed=True)
        if keep is not None:  # same alert, wherever it sorts now
            vl.select_index(keep, center=False)
        self._summary()

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
        self._view = self._compute_view()
        self.vlist.set_rows(len(self._alerts), self._view)
        self._summary()

    def _summary(self) -> None:
        snap = self.state.snapshot
        text = model.alert_summary(self.state.logdir, self._alerts, snap.traces)
        if snap.indexing:
            text = f"indexing… {text}" if len(self._alerts) else "indexing…"
        self.query_one("#alerts-summary", Static).update(
            Text(lit(text), style="bold #ff5f5f" if len(self._alerts) else "green"))
        self._warnings(snap.indexing)
        n, shown = len(self._alerts), self.vlist.row_count
        status = f"{n:,} alerts" if shown == n else f"{shown:,} of {n:,} alerts"
        extra = self.filter_status()
        self.set_status(f"{status} · {extra}" if extra else status)

    def _warnings(self, indexing: bool) -> None:
        """The reader's warnings (a full circular buffer, nothing recorded, damaged files):
        they can explain an empty or misleading alert list, so they are shown here."""
        found = [] if indexing else self.state.logdir.all_warnings()
        box = self.query_one("#alerts-warnings", Static)
        box.display = bool(found)
        if found:
            more = f" (+{len(found) - 1} more)" if len(found) > 1 else ""
            box.update(Text(f"⚠ {lit(found[0])}{more}", style="yellow"))

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        event.stop()
        self._diagnose()

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        self.post_message(FollowAlert(event.index))

    # ------------------------------------------------------------------ diagnosis
    def _diagnose(self) -> None:
        line = self.query_one("#alerts-diagnosis", Static)
        alert = self.selected_alert()
        self.diagnosis, self.diagnosed = None, None
        if alert is None:
            line.update(Text(""))
            return
        line.update(Text("diagnosing…", style="dim italic"))
        self._run_diagnosis(alert, self.selected)

    @work(thread=True, exclusive=True, group="diagnosis")
    def _run_diagnosis(self, alert: tuple[int, int, int], position: int | None) -> None:
        worker = get_current_worker()
        result: Diagnosis | None
        try:
            found = diagnose(self.state.logdir, *alert)
            result, message = found, found.explanation
        except ReaderError as exc:  # DiagnosisFailed included: data the diagnosis did not
            # expect is said on this line and the debugger goes on (with TFDBG_TUI_STRICT=1
            # the original exception propagates and the worker fails, as the tests want)
            result, message = None, f"diagnosis failed: {exc}"
        if not worker.is_cancelled:
            self.app.call_from_thread(self._show_diagnosis, position, result, message)

    def _show_diagnosis(self, position: int | None, result: Diagnosis | None,
                        message: str) -> None:
        if position != self.selected:
            return  # the selection moved on; its own diagnosis is on the way
        self.diagnosis, self.diagnosed = result, position
        line = self.query_one("#alerts-diagnosis", Static)
        notes = " ".join(result.notes) if result is not None and result.notes else ""
        line.update(Text(lit(f"{message} {notes}" if notes else message), style="italic"))
        if position is not None:
            self.post_message(DiagnosisReady(position, result))
