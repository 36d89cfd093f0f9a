"""The Alerts pane's rows: in time order, or grouped by incident once the incidents are known.

Grouped (`core.alert_groups`), each incident is a header row — its origin, step, how many
alerts are downstream of it and why — with its alerts beneath; ← folds an incident to its
header, → (or Enter on the header) unfolds it. The rows stay ids of one `VirtualList`
(alert positions, then one id per header), so a million alerts cost what they did before.
While the incidents are not known (indexing) the rows are in time order. A live run that
grows keeps its groups (`keep_groups`): the alerts found since go to a last group, "new, not
yet grouped", until the incidents are found again — the rows do not jump back to time
order whenever an alert arrives; incidents found for a list the run has grown from since
are laid over the grown list the same way (`on_journey_found`), the folds kept by origin.
Whatever the layout, `selected` is an alert position (None on a header), the cursor keeps
its alert (or header), and `n`/`N` walk the alerts as shown.

A mixin of `AlertsPane` (kept apart so that module stays short).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import numpy as np
from rich.text import Text

from reader import Alerts
from tfdbg_tui.core.alert_groups import AlertGroups, positions_in
from tfdbg_tui.core.journey import Journey
from tfdbg_tui.ui.render import MARK_STYLE, WARN, alert_row, incident_row

if TYPE_CHECKING:
    from tfdbg_tui.ui.panes.alerts import AlertsPane

GROUP_ACTIONS = frozenset({"fold", "unfold"})


class AlertRows:
    """Row layout, cursor and fold keys of `AlertsPane`."""

    _groups: AlertGroups | None = None  # the grouping shown (None: time order)
    _collapsed: frozenset[int] = frozenset()  # folded incidents (0-based)
    _shown: np.ndarray | None = None  # alerts shown per incident (with a filter)
    # the grouping's journey was found for `_jfor`; a live run grew since: `_jmap[p]` is
    # alert p's position in `_jfor` (-1: found since). None: the journey is the list's own
    _jfor: Alerts | None = None
    _jmap: np.ndarray | None = None
    _held = False  # the selection is the user's (`chosen`)

    @property
    def _p(self) -> AlertsPane:
        return cast("AlertsPane", self)

    # ------------------------------------------------------------------ journey
    def journey(self) -> Journey | None:
        """The steps and incidents shown: found for the alerts shown, or for those before a
        live run grew (see `step_at`); None while not known."""
        j = self._p.state.journey
        if j is None:
            return None
        if j.alerts is self._p.alerts or (self._jmap is not None and j.alerts is self._jfor):
            return j
        return None

    def step_at(self, position: int) -> int | None:
        """Alert `position`'s training step (None: outside every step, or not known yet)."""
        j = self.journey()
        if j is None:
            return None
        if j.alerts is not self._p.alerts:
            m = self._jmap
            position = int(m[position]) if m is not None and 0 <= position < len(m) else -1
            if position < 0:
                return None
        return j.step_at(position)

    def keep_groups(self, old: Alerts, new: Alerts) -> bool:
        """The run grew from `old` to `new` alerts: keep the groups over `new` (the alerts
        found since in the "not yet grouped" group). False (time order) when there are no
        groups, or `new` is not `old` grown."""
        g = self._groups
        moved = positions_in(old, new) if g is not None else None
        if g is None or moved is None:
            self._groups, self._jmap = None, None
            return False
        jmap = np.full(len(new), -1, np.int64)
        jmap[moved] = self._jmap if self._jmap is not None else np.arange(len(old))
        self._groups, self._jmap = g.grown(moved, len(new)), jmap
        return True

    def on_journey_found(self, j: Journey | None) -> None:
        """Steps and incidents were found: group by them when they are the list's own — or
        the list's before a live run grew, through the position map (`_jmap`), the alerts
        found since apart ("not yet grouped"): the run may grow again before the grown
        list's incidents are found, and dropping a result because of it would leave the
        incidents older and older while the run grows."""
        alerts = self._p.alerts
        if j is not None and j.alerts is alerts:
            self._jfor, self._jmap = j.alerts, None
            self.group_by_incidents(j.groups)
            return
        moved = positions_in(j.alerts, alerts) if j is not None else None
        if j is not None and moved is not None:  # found for a list this one grew from
            jmap = np.full(len(alerts), -1, np.int64)
            jmap[moved] = np.arange(len(j.alerts), dtype=np.int64)
            self._jfor, self._jmap = j.alerts, jmap
            self.group_by_incidents(j.groups.grown(moved, len(alerts))
                                    if j.groups is not None else None)
        elif self._jmap is None:  # not for these alerts, and no grown grouping to keep
            self.group_by_incidents(None)

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
        """Show `groups` (None: time order), the selected alert (or header) and the folded
        incidents kept — by origin: in a live run the incidents are found again and again,
        and a fold or a header the user chose must not come undone each time."""
        if groups is self._groups:
            return
        p, old = self._p, self._groups
        anchor = self.selected_row()
        header = None  # the selected header's group in `groups`
        if anchor is not None and old is not None and old.is_header(anchor):
            header = _same_group(old, old.incident_at(anchor), groups)
            anchor = old.first_of(old.incident_at(anchor))
        folded = [_same_group(old, k, groups) for k in self._collapsed] if old else []
        self._groups = groups
        self._collapsed = frozenset(k for k in folded if k is not None)
        self.lay_out()
        if header is not None and groups is not None:
            p.vlist.select_index(groups.header(header), center=False, announce=False)
        elif anchor is not None:
            p.vlist.select_index(anchor, center=False, announce=False)

    def render_row(self, row: int, width: int) -> Text:
        p, g = self._p, self._groups
        if g is not None and g.is_header(row):
            k = g.incident_at(row)
            inc = g.incident(k)
            shown = int(self._shown[k]) if self._shown is not None else (
                inc.alerts if inc is not None else g.fresh)
            if inc is None:
                return fresh_row(shown, k in self._collapsed, width)
            return incident_row(inc, len(g.items), shown, k in self._collapsed, width)
        a = p.alerts
        return alert_row(p.state.logdir, row, int(a.kind[row]), int(a.index[row]),
                         int(a.slot[row]), p.t0, float(a.wall_time[row]), width,
                         step=self.step_at(row))

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

    @property
    def chosen(self) -> bool:
        """The selection is the user's: moved with a key or a click in the list, `n`/`N`, a
        fold, `g`, or held by the screen once the user moved elsewhere (`hold_selection`).
        Until then it is the app's, kept on the run's first alert as alerts arrive."""
        return self._held or self._p.vlist.user_moves > 0

    def hold_selection(self) -> None:
        """From now on the selected alert stays selected (by identity) as alerts arrive."""
        self._held = True

    def first_shown(self) -> int | None:
        """The app's selection: the first alert in time the filter shows (None: none)."""
        p = self._p
        if p.filter_view is None:
            return 0 if len(p.alerts) else None
        return int(p.filter_view[0]) if len(p.filter_view) else None

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
        self.hold_selection()
        k = g.incident_at(row)
        if k not in self._collapsed:
            self._collapsed = self._collapsed | {k}
            self.lay_out()
        self._p.vlist.select_index(g.header(k), center=False)

    def action_unfold(self) -> None:
        """→: unfold the incident whose header is selected."""
        k = self.selected_incident()
        if k is not None and k in self._collapsed:
            self.hold_selection()
            self._collapsed = self._collapsed - {k}
            self.lay_out()

    def toggle_fold(self, k: int) -> None:
        """Enter on incident k's header."""
        if k in self._collapsed:
            self.action_unfold()
        else:
            self.action_fold()


def _same_group(old: AlertGroups, k: int, new: AlertGroups | None) -> int | None:
    """Group k of `old` in `new`: the incident of the same origin, or the "not yet
    grouped" group when both have one; None when `new` has no such group."""
    if new is None:
        return None
    inc = old.incident(k)
    if inc is None:
        return len(new.items) if new.fresh else None
    return next((i for i, it in enumerate(new.items) if it.key == inc.key), None)


def fresh_row(count: int, collapsed: bool, width: int) -> Text:
    """The header of the alerts a live run wrote after its incidents were found: they are
    grouped (diagnosed) when the incidents are found again for the grown list."""
    s = "" if count == 1 else "s"
    row = Text(no_wrap=True, end="", style="bold", overflow="ellipsis")
    row.append("▶ " if collapsed else "▼ ", MARK_STYLE)
    row.append("new", WARN)
    row.append(f" · {count:,} alert{s} not yet grouped")
    row.append(" (found since the incidents; grouped when they are found again)",
               "dim italic")
    row.truncate(max(1, width), overflow="ellipsis")
    return row
