"""The main screen's first alert: followed by the app at launch, and kept the run's first
until the user moves.

At launch the app follows the first alert (tensor, op, stack, the line to fix), as
TensorBoard's Debugger V2 opens on it. A logdir's alerts arrive in pieces — progress
snapshots of the first read, a file read later, a live run's polls — and a later piece can
hold an earlier alert (issue 31: the eager call of a step read before its graph traces).
While the selection is the app's, the Alerts pane moves it to the run's first alert
(`AlertsPane.on_data`) and this follows it again, so the first screen shows what `report`
headlines. The user's first move ends that: a key or a click in any list, `n`/`N`, a fold,
another pane focused (by the user, or by compare mode opening on its divergence): the panes
then show what the user works from, and nothing moves by itself (issue 19). If indexing
then ends with an alert earlier than the one followed, a notice says so and how to get there.

A mixin of `MainScreen`, kept apart so the screen stays short.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from reader import GRAPH
from tfdbg_tui.core import model
from tfdbg_tui.ui.vlist import VirtualList

if TYPE_CHECKING:
    from tfdbg_tui.ui.main_screen import MainScreen

Alert = tuple[int, int, int]  # (kind, index, slot)


class FirstAlert:
    """The launch follow of `MainScreen` (which it must be mixed into)."""

    _launch_followed = False  # the first alert is followed once, at launch
    _launch_alert: Alert | None = None  # followed while indexing: checked when it ends
    _app_pick: Alert | None = None  # the alert the app followed, while the user has not moved
    _moves_then = 0  # the user's moves in the lists when it was followed

    @property
    def _s(self) -> MainScreen:
        return cast("MainScreen", self)

    def _user_moves(self) -> int:
        return sum(v.user_moves for v in self._s.query(VirtualList))

    def first_alerts_arrived(self) -> None:
        """The first alerts are in: select the first (once), and follow it after a refresh."""
        if self._launch_followed:
            return
        self._launch_followed = True
        s = self._s
        if s.alerts.selected is None:
            s.alerts.vlist.select_index(0)
        s.call_after_refresh(self._follow_at_launch)

    def _follow_at_launch(self) -> None:
        """The first view is a full one (tensor, op, stack, line) — unless the user has
        already gone elsewhere."""
        s = self._s
        if s.focused in (None, s.alerts.vlist) and s.alerts.selected in (None, 0):
            s.alerts.vlist.select_index(0)
            self._followed_by_app(0)

    def _followed_by_app(self, position: int) -> None:
        s = self._s
        s.follow_alert(position)
        self._app_pick = s.alerts.selected_alert()
        self._moves_then = self._user_moves()
        if s.state.snapshot.indexing:  # the earliest so far: checked at the end
            self._launch_alert = self._app_pick

    def user_moved(self) -> None:
        """The user moved (or the app went elsewhere): the followed alert is theirs now, and
        the Alerts pane holds it (by identity) as alerts arrive."""
        if self._app_pick is not None:
            self._app_pick = None
            self._s.alerts.hold_selection()

    def before_new_alerts(self) -> None:
        """Before the panes take a new snapshot: has the user moved since the app's follow?
        (A focus change is also caught as it happens: `focus_moved`.)"""
        s = self._s
        if self._app_pick is not None and (
                s.alerts.chosen or s.focused is not s.alerts.vlist
                or self._user_moves() != self._moves_then):
            self.user_moved()

    def focus_moved(self, widget: object) -> None:
        if widget is not self._s.alerts.vlist:
            self.user_moved()

    def after_new_alerts(self) -> None:
        """After: the Alerts pane kept the app's selection on the run's first alert — if that
        is another alert now (an earlier one arrived), follow it as the launch did."""
        s = self._s
        now, position = s.alerts.selected_alert(), s.alerts.selected
        if self._app_pick is None or now is None or position is None or now == self._app_pick:
            return
        self._followed_by_app(position)
        if not s.state.snapshot.indexing:
            self._launch_alert = None  # followed on the finished index: nothing to check

    def earlier_alert_found(self) -> None:
        """Indexing ended: if an alert earlier than the one followed at launch appeared (after
        the user moved: else it is followed already), say so and how to go there — the
        user's selection is never moved by itself."""
        launch, self._launch_alert = self._launch_alert, None
        s = self._s
        if launch is None or s.alerts.selected_alert() != launch:
            return  # not followed while indexing, or the user has moved on
        logdir = s.state.logdir
        table = logdir.traces if launch[0] == GRAPH else logdir.executions
        pos = model.alert_position(s.alerts.alerts, launch[0], launch[1],
                                   wall=float(table.wall_time[launch[1]]))
        if not pos:
            return  # still the earliest: what "earliest so far" promised
        what = "an earlier alert" if pos == 1 else f"{pos:,} earlier alerts"
        s.notify(f"Indexing found {what} than the one selected at launch. In Alerts, "
                 "Home then Enter follows the earliest (your selection stays).",
                 title="earlier alert", timeout=30, markup=False)
