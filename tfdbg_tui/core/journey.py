"""The NaN journey's facts the app shows beside the alerts: steps and incidents.

Computed once the logdir is read (and again when a live one grows), off the UI thread: the
training step of every alert (`reader.diagnosis.steps`), the per-step strip, and the alerts
grouped by origin (`reader.diagnosis.incidents`, which diagnoses a few alerts). The panes
read the finished `Journey` from `AppState.journey`; nothing here imports Textual.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader import Alerts, DebugLogdir
from reader.diagnosis.functions import function_label
from reader.diagnosis.incidents import Incidents, find_incidents
from reader.diagnosis.losses import StepLosses, step_losses
from reader.diagnosis.step_model import TrainingSteps
from reader.diagnosis.steps import training_steps
from tfdbg_tui.core.alert_groups import AlertGroups
from tfdbg_tui.core.steps_strip import loss_cells, loss_note, step_range, strip_lines


@dataclass(frozen=True)
class Journey:
    """Steps and incidents for one list of alerts (`alerts`: the list they were made for)."""

    alerts: Alerts
    steps: TrainingSteps
    alert_steps: np.ndarray  # per alert position: its step, -1 outside every step
    per_step: np.ndarray  # NaN/∞ tensors per step
    losses: StepLosses | None  # None when the run has no training steps
    incidents: Incidents
    groups: AlertGroups | None = None  # the alerts by incident (None: not for these alerts)

    @property
    def first_step(self) -> int | None:
        """The first step holding an alert, None when none does. Alerts outside every step
        may come before it: the input pipeline's (a dataset function runs ahead of the
        training, `reader.diagnosis.steps`) — as `report` says it."""
        if not self.steps.count or not len(self.alert_steps):
            return None
        inside = np.asarray(self.alert_steps >= 0)
        return int(self.alert_steps[int(np.argmax(inside))]) if inside.any() else None

    def step_at(self, position: int) -> int | None:
        if not 0 <= position < len(self.alert_steps) or self.alert_steps[position] < 0:
            return None
        return int(self.alert_steps[position])

    def headline(self) -> str | None:
        """"first NaN at step 2 of 40 (steps 0–39)" (None when the run has no training
        steps). The range says once that steps count from 0, as the user's own
        `for step in range(…)` does and every other place (Alerts, `report`, --json) shows
        them: "step 2 of 40" alone read as the second step to a user counting from 1."""
        s = self.first_step
        if s is None or not self.steps.count:
            return None
        return f"first NaN at step {s} of {self.steps.count} ({step_range(self.steps.count)})"

    def strip(self, width: int) -> list[str]:
        """The per-step strip, then what its loss line is (or why there is none)."""
        lo = self.losses
        cells = loss_cells(lo.values, lo.state) if lo is not None else None
        lines = strip_lines(self.steps.count, self.per_step, cells, self.first_step, width)
        return lines + ([loss_note(lo.tensor, lo.found, lo.note)] if lo is not None else [])

    def incidents_line(self) -> str:
        """"2 incidents: Square (step 2, 2 alerts), MatMul (step 2, 104 alerts)"."""
        items = self.incidents.items
        if not items:
            return ""
        parts = []
        for inc in items[:3]:
            where = f"step {inc.step}, " if inc.step is not None else ""
            parts.append(f"{function_label(inc.origin_name)} ({where}{inc.alerts:,} alert"
                         f"{'' if inc.alerts == 1 else 's'})")
        more = f", +{len(items) - 3} more" if len(items) > 3 else ""
        n = len(items)
        return f"{n} incident{'' if n == 1 else 's'}: " + ", ".join(parts) + more


def enclosing_call(logdir: DebugLogdir, n_executions: int, trace: int) -> int | None:
    """The eager execution recorded when graph trace `trace`'s tf.function call returned
    (the Timeline row holding it: TensorFlow writes a call's record after its traces), or
    None when the trace comes after every execution read."""
    if not 0 <= trace < len(logdir.traces) or n_executions <= 0:
        return None
    walls = logdir.executions.wall_time[:n_executions]
    k = int(np.searchsorted(walls, float(logdir.traces.wall_time[trace]), "left"))
    return k if k < n_executions else None


def compute_journey(logdir: DebugLogdir, alerts: Alerts) -> Journey:
    """The journey for `alerts` (call it on a finished read: see `training_steps`)."""
    steps = training_steps(logdir)
    alert_steps = steps.steps_of(alerts.kind, alerts.index)  # (its index made if needed)
    per_step = (np.bincount(alert_steps[alert_steps >= 0], minlength=steps.count)[:steps.count]
                if steps.count else np.zeros(0, np.int64))
    losses = step_losses(logdir, steps) if steps.count else None
    incidents = find_incidents(logdir, steps, alerts=alerts)  # (a live run grows)
    return Journey(alerts, steps, alert_steps, per_step, losses, incidents,
                   AlertGroups.of(incidents, len(alerts)))
