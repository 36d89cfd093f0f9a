"""The Alerts pane's rows: in time order, or grouped by incident once the incidents are known.

Grouped (`core.alert_groups`), each incident is a header row — its origin, step, how many
alerts are downstream of it and why — with its alerts beneath; ← folds an incident to its
header, → (or Enter on the header) unfolds it. The rows stay ids of one `VirtualList`
(alert positions, then one id per header), so a million alerts cost what they did before.
While the incidents are not known for the alerts shown (indexing, a live run that grew) the
rows are in time order. Whatever the layout, `selected` is an alert position (None on a
header), the cursor keeps its alert, and `n`/`N` walk the alerts as shown.

A mixin of `AlertsPane` (kept apart so that module stays short).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from rich.text import Text

from tfdbg_tui.core.alert_groups import AlertGroups
from tfdbg_tui.ui.render import alert_row, incident_row

if TYPE_CHECKING:
    from tfdbg_tui.ui.panes.alerts import AlertsPane

GROUP_ACTIONS = frozenset({"fold", "unfold"})


class AlertRows:
    """Row layout, cursor and fold keys of `AlertsPane`."""

    _groups: AlertGroups | None = None  # the grouping shown (None: time order)
    _collapsed: frozenset[int] = frozenset()  # folded incidents (0-based)
    _shown: np.ndarray | None = None  # alerts shown per incident (with a filter)

    @property
    def _p(self) -> AlertsPane:
        return cast("AlertsPane", self)

    # ------------------------------------------------------------------ layout
    def lay_out(self, *, appended: bool = False) -> None:
        """Give the list its rows: `_filter_view`'s alerts, grouped when `_groups` is set."""
        p, g = self._p, self._groups
        if g is None:
            p.vlist.set_rows(len(p.alerts), p.filter_view, appended=appended)
            return
        self._shown = g.shown(p.filter_view)
        p.vlist.set_rows(g.count(), g.rows(p.filter_view, self._collapsed),
                         content_changed=True, ordered=False)

    def group_by_incidents(self, groups: AlertGroups | None) -> None:
        """Show `groups` (None: time order), the selected alert (or header) kept."""
        if groups is self._groups:
            return
        p = self._p
        anchor = self.selected_row()
        if anchor is not None and self._groups is not None and self._groups.is_header(anchor):
            anchor = self._groups.items[self._groups.incident_at(anchor)].first_alert
        self._groups, self._collapsed = groups, frozenset()
        self.lay_out()
        if anchor is not None:
            p.vlist.select_index(anchor, center=False, announce=False)

    def render_row(self, row: int, width: int) -> Text:
        p, g = self._p, self._groups
        if g is not None and g.is_header(row):
            k = g.incident_at(row)
            shown = int(self._shown[k]) if self._shown is not None else g.items[k].alerts
            return incident_row(g.items[k], len(g.items), shown, k in self._collapsed, width)
        a = p.alerts
        j = p.journey()
        step = j.step_at(row) if j is not None else None
        return alert_row(p.state.logdir, row, int(a.kind[row]), int(a.index[row]),
                         int(a.slot[row]), p.t0, float(a.wall_time[row]), width, step=step)

    # ------------------------------------------------------------------ cursor
    def selected_row(self) -> int | None:
        """The row id under the cursor (an alert position, or a header's id)."""
        return self._p.vlist.cursor_index

    @property
    def selected(self) -> int | None:
        """Position of the selected alert in the sorted list (None on a header)."""
        row = self.selected_row()
        if row is None or (self._groups is not None and self._groups.is_header(row)):
            return None
        return row

    def selected_incident(self) -> int | None:
        """The incident (0-based) whose header is under the cursor."""
        row, g = self.selected_row(), self._groups
        return g.incident_at(row) if row is not None and g is not None and g.is_header(row) \
            else None

    def is_alert_row(self, row: int) -> bool:
        return self._groups is None or not self._groups.is_header(row)

    def alert_rows_shown(self, positions: range) -> list[int]:
        """The alert positions among list positions `positions` (headers left out)."""
        vl = self._p.vlist
        return [r for r in (vl.index_at(k) for k in positions) if self.is_alert_row(r)]

    def next_alert_position(self, delta: int) -> int | None:
        """The list position of the alert `delta` rows of alerts away from the cursor, as
        shown (headers skipped); None past either end."""
        vl = self._p.vlist
        row = vl.cursor_index
        cur = vl.position_of(row) if row is not None else None
        pos = (0 if delta > 0 else vl.row_count - 1) if cur is None else cur + delta
        step = 1 if delta > 0 else -1
        while 0 <= pos < vl.row_count and not self.is_alert_row(vl.index_at(pos)):
            pos += step
        return pos if 0 <= pos < vl.row_count else None

    def reveal(self, position: int) -> None:
        """Unfold the incident of alert `position` if it is folded (`g`, a follow)."""
        g = self._groups
        if g is not None and 0 <= position < g.n and g.incident_at(position) in self._collapsed:
            self._collapsed = self._collapsed - {g.incident_at(position)}
            self.lay_out()

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """← / → fold only grouped rows (help and the footer leave them out otherwise)."""
        if action in GROUP_ACTIONS:
            return self._groups is not None
        return True

    def action_fold(self) -> None:
        """←: fold the incident of the selected row to its header."""
        row, g = self.selected_row(), self._groups
        if row is None or g is None:
            return
        k = g.incident_at(row)
        if k not in self._collapsed:
            self._collapsed = self._collapsed | {k}
            self.lay_out()
        self._p.vlist.select_index(g.header(k), center=False)

    def action_unfold(self) -> None:
        """→: unfold the incident whose header is selected."""
        k = self.selected_incident()
        if k is not None and k in self._collapsed:
            self._collapsed = self._collapsed - {k}
            self.lay_out()

    def toggle_fold(self, k: int) -> None:
        """Enter on incident k's header."""
        if k in self._collapsed:
            self.action_unfold()
        else:
            self.action_fold()
