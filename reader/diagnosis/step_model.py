"""A run's training steps as data: the form they took, how many, the step of every graph
trace and eager execution, and the words and JSON for one step ("step 2 of 40 (fit epoch 0,
batch 2)"). Why apart from `steps`, which finds them: the alerts, incidents, the journey
and `report` ask this model; only `training_steps` needs to know how steps are found.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from reader.index.logdir import DebugLogdir
from reader.index.schema import GRAPH

SESSION, EAGER_STEP, FUNCTION, FIT = "session_run", "eager", "function", "fit"
FORM_NAMES = {SESSION: "Session.run", EAGER_STEP: "eager train_step",
              FUNCTION: "tf.function call", FIT: "fit"}

@dataclass(frozen=True)
class TrainingSteps:
    """A run's training steps: the form, how many, and the step of every tensor row."""

    form: str | None  # one of FORM_NAMES' keys; None when no training step was found
    count: int
    trace_step: np.ndarray  # per graph trace row: its step, -1 outside every step
    exec_step: np.ndarray  # per eager execution: its step, -1 outside every step
    function: str | None = None  # the step's function (tf.function / eager) when known
    epoch_starts: tuple[int, ...] = ()  # fit: the first step of each epoch
    notes: tuple[str, ...] = field(default_factory=tuple)
    calls: np.ndarray | None = None  # a called step's execution per step (its loss output)
    # eager: the steps are iterations of a loop written in `function` (True), calls of it
    # (False), or the source did not say (None)
    loop: bool | None = None

    def step_of(self, kind: int, index: int) -> int | None:
        """The step of a graph trace (GRAPH) or eager execution, None outside every step."""
        table = self.trace_step if kind == GRAPH else self.exec_step
        if not 0 <= index < len(table):
            return None
        s = int(table[index])
        return s if s >= 0 else None

    def steps_of(self, kinds: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """`step_of` for many rows at once (-1 outside every step)."""
        if not self.count:  # every row outside: no lookups (5.55M alerts: 1.2 s under load),
            # and one value seen as a read-only column (`indices` may be a lazy column,
            # never made: 44 MB each for 5.55M alerts)
            return np.broadcast_to(np.int64(-1), (len(indices),))
        kinds, indices = np.asarray(kinds), np.asarray(indices, np.int64)
        out = np.full(len(indices), -1, np.int64)
        for k, table in ((GRAPH, self.trace_step), (1 - GRAPH, self.exec_step)):
            sel = (kinds == k) & (indices >= 0) & (indices < len(table))
            out[sel] = table[indices[sel]]
        return out

    def epoch_batch(self, step: int) -> tuple[int, int] | None:
        """(epoch, batch within it), both 0-based, for a `fit` run; None otherwise."""
        if self.form != FIT or not self.epoch_starts or step < 0:
            return None
        e = int(np.searchsorted(np.asarray(self.epoch_starts), step, "right")) - 1
        return (e, step - self.epoch_starts[e]) if e >= 0 else None

    def describe(self, step: int | None) -> str:
        """"step 2 of 40 (fit epoch 0, batch 2)": the step and its form, in words."""
        if self.form is None:
            return "no training steps found"
        if step is None:
            return "outside the training steps"
        return f"step {step} of {self.count} ({self.form_of(step)})"

    def form_of(self, step: int) -> str:
        """The form of one step: "Session.run", "tf.function train_step call", "eager loop
        in main", "eager train_step call", "fit epoch 0, batch 2"."""
        eb = self.epoch_batch(step)
        if eb is not None:
            return f"fit epoch {eb[0]}, batch {eb[1]}"
        if self.form == FUNCTION:
            return f"tf.function {self.function} call" if self.function else "tf.function call"
        if self.form == EAGER_STEP:  # in the user's words: their loop, or their function
            if self.loop:  # "eager main" read as a function named main being the step
                return f"eager loop in {self.function}" if self.function else "eager loop"
            call = " call" if self.loop is False else ""
            return f"eager {self.function}{call}" if self.function else "eager step"
        return FORM_NAMES.get(self.form or "", "?")

    def to_json(self, step: int | None) -> dict[str, Any]:
        """One alert's step as JSON: step (null outside the steps), of, form, epoch, batch."""
        eb = self.epoch_batch(step) if step is not None else None
        return {"step": step, "of": self.count, "form": self.form,
                "form_text": self.form_of(step) if step is not None else None,
                "epoch": eb[0] if eb else None, "batch": eb[1] if eb else None}


def no_steps(logdir: DebugLogdir, notes: tuple[str, ...] = ()) -> TrainingSteps:
    """No training step: every row's step is -1, one value seen as a read-only column (a
    run of 10M graph traces held 100 MB of -1s)."""
    return TrainingSteps(None, 0, np.broadcast_to(np.int64(-1), (len(logdir.traces),)),
                         np.broadcast_to(np.int64(-1), (len(logdir.executions),)), notes=notes)


def alerts_per_step(steps: TrainingSteps, kinds: np.ndarray, indices: np.ndarray
                    ) -> np.ndarray:
    """How many alerts fall in each step (length `steps.count`)."""
    s = steps.steps_of(kinds, indices)
    s = s[s >= 0]
    return np.bincount(s, minlength=steps.count)[: steps.count]
