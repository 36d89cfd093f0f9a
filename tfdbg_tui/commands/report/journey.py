"""`report`'s NaN journey: which training step went bad, and the alerts grouped by origin.

Adds to the report dict (see `build`):
- on every detailed alert, `step` (0-based, null when the run has no training steps or the
  alert is outside them), `step_form` ("tf.function train_step call", "fit epoch 1, batch
  2", …) and `incident` (the number of the incident its diagnosis belongs to);
- `steps`: the form, the count, the first step holding an alert (`first_alert_step`;
  alerts outside every step, `alerts_outside_steps`, may come before it) and, per step, its
  NaN/∞ tensors and its loss (`loss`, `loss_state`: "value", "finite" — its value not
  recorded in this mode —, "nan", "inf", "-inf" or "unknown"), and `loss`: which tensor the
  loss was read from and how it was found, or why not (`reader.diagnosis.losses`; never a
  made-up value);
- `incidents`: one per origin op, with its diagnosis, step, how many alerts are counted with
  it and of which op types, and its first alert's position (`reader.diagnosis.incidents`);
  their `alerts` add up to `alerts.total`.
The diagnoses made here are handed to the diagnosis section, which does not walk them again.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from reader import DebugLogdir, ReaderError
from reader.diagnosis import Diagnosis, diagnose
from reader.diagnosis.incidents import Incident, find_incidents
from reader.diagnosis.losses import step_losses
from reader.diagnosis.steps import training_steps

PER_STEP_JSON = 10_000  # steps listed one by one in `steps.per_step`
KNOWN = "_diagnosis"  # entry key the diagnosis section takes a finished diagnosis from


def add_journey(logdir: DebugLogdir, report: dict[str, Any],
                first: list[dict[str, Any]]) -> None:
    """Set the steps and incidents of `report` and the step of each entry of `first`."""
    steps = training_steps(logdir)
    alerts = logdir.alerts()
    alert_steps = steps.steps_of(alerts.kind, alerts.index)  # (its index made if needed)
    # the first step holding an alert: an alert outside every step comes before it when the
    # input pipeline (a dataset function, reader.diagnosis.steps) met the NaN/∞ first
    inside = np.asarray(alert_steps >= 0) if steps.count else np.zeros(0, bool)
    k0 = int(np.argmax(inside)) if inside.any() else None
    first_bad = int(alert_steps[k0]) if k0 is not None else None
    per_step = (np.bincount(alert_steps[alert_steps >= 0], minlength=steps.count)[:steps.count]
                if steps.count else np.zeros(0, np.int64))
    losses = step_losses(logdir, steps, PER_STEP_JSON) if steps.count else None
    report["steps"] = {
        "form": steps.form, "count": steps.count, "function": steps.function,
        "first_alert_step": first_bad,
        "first_alert_form": steps.form_of(first_bad) if first_bad is not None else None,
        "epoch_starts": list(steps.epoch_starts) if steps.epoch_starts else None,
        "alerts_outside_steps": int((alert_steps < 0).sum()),
        "per_step": [{"step": s, "alerts": int(per_step[s]),
                      "loss": _loss_json(losses.values[s]) if losses else None,
                      "loss_state": losses.state[s] if losses else "unknown"}
                     for s in range(min(steps.count, PER_STEP_JSON))],
        "loss": ({"tensor": losses.tensor or None, "found": losses.found or None,
                  "note": losses.note or None} if losses is not None else None),
        "notes": list(steps.notes),
    }
    # the same incidents whatever --limit asks to detail: which alerts they diagnose does
    # not depend on it (reader.diagnosis.incidents)
    incidents = find_incidents(logdir, steps, alerts=alerts)
    for k, entry in enumerate(first):
        s = int(alert_steps[k]) if k < len(alert_steps) and alert_steps[k] >= 0 else None
        entry["step"] = s
        entry["step_form"] = steps.form_of(s) if s is not None else None
        if k in incidents.diagnoses:
            d = incidents.diagnoses[k]
        else:  # a detailed alert the incidents did not walk: its own diagnosis, here once
            try:
                d = diagnose(logdir, int(alerts.kind[k]), int(alerts.index[k]),
                             int(alerts.slot[k]))
            except ReaderError:
                continue  # the diagnosis section tries again and says why it failed
        entry[KNOWN] = d
        number = incidents.of_alert.get(k) or (incidents.number_of(d) if d else None)
        if number is not None:
            entry["incident"] = number
    report["incidents"] = [_incident_json(i, steps.form_of(i.step) if i.step is not None
                                          else None) for i in incidents.items]


def _loss_json(v: float | None) -> float | str | None:
    """A loss as JSON: a number, or "nan" / "inf" / "-inf" (JSON has none of them)."""
    if v is None or math.isfinite(v):
        return v
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


def _backward_json(d: Diagnosis) -> dict[str, Any]:
    origin = d.to_json()["origin"]
    return {k: origin[k] for k in ("kind", "index", "op_type", "op_name", "graph_name",
                                   "device")} | {"explanation": d.explanation}


def _incident_json(inc: Incident, steps_form: str | None) -> dict[str, Any]:
    d = inc.diagnosis
    diagnosis = d.to_json() if d is not None else None
    out: dict[str, Any] = {
        "number": inc.number,
        "origin": diagnosis["origin"] if diagnosis is not None else None,
        "explanation": d.explanation if d is not None else None,
        "diagnosis": diagnosis,
        "error": inc.error,
        "step": inc.step,
        "step_form": steps_form,
        "alerts": inc.alerts,
        "first_alert": inc.first_alert,
        "diagnosed": inc.diagnosed,
        # most alerts first, ties by name: the counter's own order follows string ids, which
        # differ between a read in one pass and one host by host (workers, shards)
        "op_types": dict(sorted(inc.op_types.items(), key=lambda kv: (-kv[1], kv[0]))),
        # its gradient's origins, counted with it (reader.diagnosis.backward_pairs)
        "backward": [_backward_json(b) for b in inc.backward],
        # the step's later overflows, counted with it (reader.diagnosis.overflows)
        "overflows": [_backward_json(o) for o in inc.overflows],
    }
    if d is None:
        out["origin_op_type"] = inc.origin_name
    return out
