"""Incidents: the alerts grouped by the op their NaN/∞ was born in.

One bad op makes hundreds of alerts downstream (every later tensor of the step, then every
step after it once the weights are NaN); the user wants "1 origin, 277 alerts downstream",
not the same diagnosis ten times. Diagnosing every alert would cost millions of walks, so
some are diagnosed — the first `limit`, and the first alert of every step that follows a
clean step (where a new incident can begin) — and each undiagnosed alert is counted with the
diagnosed alert before it in time. So the incidents' counts add up to the alert total, and
`diagnosed` says how many of an incident's alerts were walked back one by one.

Two diagnosed alerts are one incident when their origins are the same op (graph, op name or
eager op type) written at the same line — whatever step or trace row it was in.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from reader.diagnosis import diagnose
from reader.diagnosis.result import Diagnosis
from reader.diagnosis.step_model import TrainingSteps
from reader.errors import ReaderError
from reader.index.alerts import Alerts
from reader.index.logdir import DebugLogdir
from reader.index.schema import GRAPH

MAX_NEW_STARTS = 20  # extra alerts diagnosed where a clean step is followed by a bad one
BLOCK = 1 << 18  # alerts whose kinds are counted at a time (their temporaries: ~8 MB)
Key = tuple[object, ...]


@dataclass
class Incident:
    """One origin and the alerts counted with it (positions in the wall-time alert list)."""

    number: int  # 1-based, in order of first alert
    key: Key
    diagnosis: Diagnosis | None  # None: the diagnosis failed (`error` says why)
    first_alert: int
    step: int | None
    alerts: int = 0
    diagnosed: int = 0
    op_types: Counter[str] = field(default_factory=Counter)
    error: str | None = None

    @property
    def origin_name(self) -> str:
        d = self.diagnosis
        if d is None:
            return str(self.key[-1])
        return d.origin_op_name or d.origin_op_type


@dataclass
class Incidents:
    """The incidents and, per diagnosed alert position, its incident number and diagnosis."""

    items: list[Incident]
    of_alert: dict[int, int]  # diagnosed alert position → incident number
    diagnoses: dict[int, Diagnosis | None]
    total: int

    def incident_of(self, position: int) -> Incident | None:
        """The incident an alert position is counted with (diagnosed or not)."""
        if not self.items or position < 0:
            return None
        starts = sorted(self.of_alert)
        k = int(np.searchsorted(np.asarray(starts), position, "right")) - 1
        return self.items[self.of_alert[starts[max(k, 0)]] - 1]


def _key(d: Diagnosis) -> Key:
    uf = d.fix_frame or d.origin_user_frame
    where = (uf.file, uf.line) if uf is not None else None
    return (d.origin_kind, d.origin_graph_name, d.origin_op_name or d.origin_op_type, where)


def to_diagnose(steps: TrainingSteps | None, alert_steps: np.ndarray | None, n: int,
                limit: int) -> list[int]:
    """Alert positions to diagnose: the first `limit`, and the first alert of each step that
    follows a step without alerts (at most MAX_NEW_STARTS of those)."""
    picked = set(range(min(n, max(limit, 1))))
    if steps is not None and alert_steps is not None and len(alert_steps) and steps.count:
        per = np.bincount(alert_steps[alert_steps >= 0], minlength=steps.count)
        fresh = np.flatnonzero((per[1:] > 0) & (per[:-1] == 0)) + 1
        for s in fresh[:MAX_NEW_STARTS].tolist():
            at = np.flatnonzero(alert_steps == s)
            if len(at):
                picked.add(int(at[0]))
    return sorted(p for p in picked if p < n)


def find_incidents(logdir: DebugLogdir, steps: TrainingSteps | None = None,
                   limit: int = 10, known: dict[int, Diagnosis | None] | None = None,
                   alerts: Alerts | None = None) -> Incidents:
    """Group the logdir's alerts into incidents (see the module docstring). `known`: alert
    positions already diagnosed (the report's first alerts), not walked again. `alerts`:
    the list to group (default: the logdir's now) — a live run's as it was when asked,
    though the run grew while its incidents were found (the app lays them over the grown
    list by position: its incidents must count that list, not a later one)."""
    if alerts is None:
        alerts = logdir.alerts()
    n = len(alerts)
    # the alerts' index column is looked up for the positions diagnosed and a block at a
    # time below, never made whole (5.55M alerts: 44 MB and its temporaries)
    alert_steps = steps.steps_of(alerts.kind, alerts.index) if steps is not None else None
    positions = to_diagnose(steps, alert_steps, n, limit)
    diagnoses: dict[int, Diagnosis | None] = {}
    items: list[Incident] = []
    by_key: dict[Key, Incident] = {}
    of_alert: dict[int, int] = {}
    for p in positions:
        kind, index, slot = int(alerts.kind[p]), int(alerts.index[p]), int(alerts.slot[p])
        error = None
        if known is not None and p in known:
            d = known[p]
        else:
            try:
                d = diagnose(logdir, kind, index, slot)
            except ReaderError as exc:
                d, error = None, f"diagnosis failed: {exc}"
        diagnoses[p] = d
        key = _key(d) if d is not None else ("undiagnosed", kind, _op_type(logdir, kind, index))
        inc = by_key.get(key)
        if inc is None:
            step = int(alert_steps[p]) if alert_steps is not None and alert_steps[p] >= 0 \
                else None
            inc = Incident(len(items) + 1, key, d, p, step, error=error)
            items.append(inc)
            by_key[key] = inc
        inc.diagnosed += 1
        of_alert[p] = inc.number
    bounds = [*positions, n]
    types = _code_types(logdir)
    for a, b in pairwise(bounds):
        inc = items[of_alert[a] - 1]
        inc.alerts += b - a
        # alerts per kind, then per op type (ascending string id, "?" first): a few
        # thousand kinds counted, not millions of alerts sorted
        per_kind = np.zeros(len(types), np.int64)
        for lo in range(a, b, BLOCK):
            hi = min(b, lo + BLOCK)
            codes = _kind_codes(logdir, np.asarray(alerts.kind[lo:hi]),
                                np.asarray(alerts.index[lo:hi]))
            per_kind += np.bincount(codes, minlength=len(types))
            logdir.release_pages()  # (the kinds of a million alerts' rows: all pages)
        per_type = np.bincount(types + 1, weights=per_kind)
        for u in np.flatnonzero(per_type).tolist():
            inc.op_types[logdir.strings[u - 1] if u > 0 else "?"] += int(per_type[u])
    return Incidents(items, of_alert, diagnoses, n)


def _op_type(logdir: DebugLogdir, kind: int, index: int) -> str:
    return (logdir.op_type_of_trace(index) if kind == GRAPH
            else logdir.op_type_of_execution(index))


def _code_types(logdir: DebugLogdir) -> np.ndarray:
    """Per kind code (the trace kinds, then the execution kinds), the op type (string id,
    -1 unknown) it stands for."""
    tk = logdir.traces.kind_op_types()
    ek = np.asarray(logdir.executions.kinds.col("op_type")
                    if logdir.executions.kinds is not None else np.zeros(0, np.int32))
    tk = np.zeros(0, np.int32) if tk is None else tk
    return np.concatenate([tk, ek]).astype(np.int64)


def _kind_codes(logdir: DebugLogdir, kinds: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Per alert (a block of them), a code for its row's kind: a trace kind, or after them
    an execution kind (see `_code_types`)."""
    tk = logdir.traces.kind_op_types()
    n_trace_kinds = 0 if tk is None else len(tk)
    codes = np.empty(len(kinds), np.int64)
    graph = kinds == GRAPH
    codes[graph] = logdir.traces.kind_ids[indices[graph]]
    codes[~graph] = (logdir.executions.col("kind")[indices[~graph]].astype(np.int64)
                     + n_trace_kinds)
    return codes
