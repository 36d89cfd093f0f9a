"""Incidents: the alerts grouped by the op their NaN/∞ was born in.

One bad op makes hundreds of alerts downstream (every later tensor of the step, then every
step after it once the weights are NaN); the user wants "1 origin, 277 alerts downstream",
not the same diagnosis ten times. Diagnosing every alert would cost millions of walks, so
some are diagnosed, chosen from the alerts alone, never from how many the user asked to see
(`reader.diagnosis.incident_picks`: the first alerts, every kind of tensor in the steps
where incidents can begin, the first alert of later steps and kinds new to the run), and
each undiagnosed alert is counted with the diagnosed alert before it in time. So the
incidents' counts add up to the alert total, and `diagnosed` says how many of an incident's
alerts were walked back one by one.

An incident's step is its first alert's, or, when that alert is outside every training step
(a dataset function's: the input pipeline runs ahead of the training), the step of the first
of its alerts inside one — the step the NaN reached the training.

Two diagnosed alerts are one incident when their origins are the same op (graph, op name or
eager op type) written at the same line — whatever step or trace row it was in. Graph ops of
one type made by the same code (the same creation stack, frame by frame) are the same op
whatever their names: the code run once per variable (an optimizer's update, whose
divisions are `truediv`, `truediv_1`, …) or per layer is one bug. (Not the same type at the
same user line alone: in `fit` every op's user line is the `fit` call.) A training that
diverges overflows one op, then, steps later, others (the loss' square, then the layer's
MatMul once the weights pass float32's range), each diagnosed as the divergence with the
same line to fix (the learning rate): they join the first's incident (`_same_divergence`).

NaN that the data carries has its origin in the data, not in the ops that read it: such
alerts are one incident when the data enters at the same place (the tf.function argument it
was fed as, the first op that read a numpy array, the dataset it came from) — two ops
reading one bad batch were two incidents.

A gradient op whose NaN/∞ is born again of what made its forward op's (log(0) = −∞ in the
forward pass, its gradient 1/0 = ∞ in the backward) is counted with the forward op's incident
when that op is an origin in the same step (`reader.diagnosis.backward_pairs`): one bug, one
line to fix; the incident's text names the backward op. Likewise an overflow from finite
inputs joins the incident of the first overflow of its step (`reader.diagnosis.overflows`):
one bad batch overflowed the loss, then the gradients, then Adam's square of them — one cause.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise

import numpy as np

from reader.diagnosis import diagnose
from reader.diagnosis.backward_pairs import (
    Identity,
    forward_identity,
    is_backward_of_origin,
    origin_identity,
    reads_forward,
    reads_forward_call,
    untraced_forwards,
    with_backward,
)
from reader.diagnosis.incident_picks import BLOCK, code_types, kind_codes, pick, segments
from reader.diagnosis.index import diag_index
from reader.diagnosis.overflows import is_overflow, with_overflows
from reader.diagnosis.result import Diagnosis
from reader.diagnosis.step_model import TrainingSteps
from reader.errors import ReaderError
from reader.index.alerts import Alerts
from reader.index.logdir import DebugLogdir
from reader.index.schema import GRAPH

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
    backward: list[Diagnosis] = field(default_factory=list)  # its gradient's origins
    # (origin op, step) of each alert diagnosed to it: what a gradient origin is matched to
    origins: set[tuple[Identity, int | None]] = field(default_factory=set)
    overflows: list[Diagnosis] = field(default_factory=list)  # later overflows of its step

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
    aliases: dict[Key, int] = field(default_factory=dict)  # a backward origin's key → number

    def incident_of(self, position: int) -> Incident | None:
        """The incident an alert position is counted with (diagnosed or not)."""
        if not self.items or position < 0:
            return None
        starts = sorted(self.of_alert)
        k = int(np.searchsorted(np.asarray(starts), position, "right")) - 1
        return self.items[self.of_alert[starts[max(k, 0)]] - 1]

    def number_of(self, d: Diagnosis) -> int | None:
        """The incident whose origin `d` (any alert's diagnosis) names, if one does."""
        key = _key(d)
        return next((i.number for i in self.items if i.key == key), self.aliases.get(key))


def _same_divergence(items: list[Incident], d: Diagnosis) -> Incident | None:
    """The incident of an earlier divergence with the same line to fix (the learning rate),
    for a divergence diagnosed at another op, in a later step."""
    if d.cause != "divergence" or d.fix is None or d.fix.user_frame is None:
        return None
    at = d.fix.user_frame
    for inc in items:
        e = inc.diagnosis
        if e is not None and e.cause == "divergence" and e.fix is not None \
                and e.fix.user_frame is not None \
                and (e.fix.user_frame.file, e.fix.user_frame.line) == (at.file, at.line):
            return inc
    return None


def _key(d: Diagnosis) -> Key:
    entry = d.inferred or d.source
    if d.cause == "data" and entry is not None:  # the data, whichever op read it first
        uf = entry.user_frame
        return ("data", entry.kind, entry.graph_name, entry.op_name or entry.op_type,
                (uf.file, uf.line) if uf is not None else None)
    uf = d.fix_frame or d.origin_user_frame
    where = (uf.file, uf.line) if uf is not None else None
    if d.origin_kind == GRAPH and d.origin_frames:
        # ops of one type made by the same code (one creation stack, frame by frame), run
        # once per variable or layer: an optimizer's update_step's truediv and truediv_1
        made = tuple((f.file, f.line) for f in d.origin_frames)
        return (d.origin_kind, d.origin_graph_name, d.origin_op_type, made, where)
    return (d.origin_kind, d.origin_graph_name, d.origin_op_name or d.origin_op_type, where)


def find_incidents(logdir: DebugLogdir, steps: TrainingSteps | None = None,
                   known: dict[int, Diagnosis | None] | None = None,
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
    positions = pick(logdir, alerts, segments(steps, alert_steps, n))
    diagnoses: dict[int, Diagnosis | None] = {}
    items: list[Incident] = []
    by_key: dict[Key, Incident] = {}
    of_alert: dict[int, int] = {}
    aliases: dict[Key, Incident] = {}
    untraced: dict[int, list[tuple[Identity, str]]] = {}  # (see _forward_incident)
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
        step = int(alert_steps[p]) if alert_steps is not None and alert_steps[p] >= 0 \
            else None
        fwd = _forward_incident(logdir, items, d, step, untraced) if d is not None else None
        if fwd is not None and inc in (None, fwd):  # the backward of a forward origin
            if inc is None:  # (an eager RealDiv's gradient RealDiv has its key already)
                by_key[key] = aliases[key] = fwd
            inc = fwd
            if d is not None and origin_identity(d) not in {origin_identity(b)
                                                            for b in fwd.backward}:
                fwd.backward.append(d)
        elif inc is None and d is not None:
            inc = _step_overflow(items, d, step)
            if inc is not None:  # a later overflow of the step (reader.diagnosis.overflows)
                by_key[key] = aliases[key] = inc
                inc.overflows.append(d)
            else:  # a later step's overflow of the same diverging training
                inc = _same_divergence(items, d)
                if inc is not None:
                    by_key[key] = aliases[key] = inc
        if inc is None:
            inc = Incident(len(items) + 1, key, d, p, step, error=error)
            items.append(inc)
            by_key[key] = inc
        if d is not None:
            inc.origins.add((origin_identity(d), step))
        inc.diagnosed += 1
        of_alert[p] = inc.number
    bounds = [*positions, n]
    types = code_types(logdir)
    for a, b in pairwise(bounds):
        inc = items[of_alert[a] - 1]
        inc.alerts += b - a
        if inc.step is None and alert_steps is not None:  # began in the input pipeline
            inside = np.flatnonzero(np.asarray(alert_steps[a:b]) >= 0)
            inc.step = int(alert_steps[a + int(inside[0])]) if len(inside) else None
        # alerts per kind, then per op type (ascending string id, "?" first): a few
        # thousand kinds counted, not millions of alerts sorted
        per_kind = np.zeros(len(types), np.int64)
        for lo in range(a, b, BLOCK):
            hi = min(b, lo + BLOCK)
            codes = kind_codes(logdir, np.asarray(alerts.kind[lo:hi]),
                                np.asarray(alerts.index[lo:hi]))
            per_kind += np.bincount(codes, minlength=len(types))
            logdir.release_pages()  # (the kinds of a million alerts' rows: all pages)
        per_type = np.bincount(types + 1, weights=per_kind)
        for u in np.flatnonzero(per_type).tolist():
            inc.op_types[logdir.strings[u - 1] if u > 0 else "?"] += int(per_type[u])
    for inc in items:
        if inc.backward and inc.diagnosis is not None:
            inc.diagnosis = with_backward(inc.diagnosis, inc.backward, inc.step)
        if inc.overflows and inc.diagnosis is not None:
            inc.diagnosis = with_overflows(inc.diagnosis, inc.overflows, inc.step)
    return Incidents(items, of_alert, diagnoses, n,
                     {k: inc.number for k, inc in aliases.items()})


def _forward_incident(logdir: DebugLogdir, items: list[Incident], d: Diagnosis,
                      step: int | None, seen: dict[int, list[tuple[Identity, str]]]
                      ) -> Incident | None:
    """The incident whose origin, in `step`, is the forward op of gradient origin `d`
    (`reader.diagnosis.backward_pairs`). `seen`: the untraced forwards per backward call
    already asked (many alerts walk back to one call; each asking walks its graph)."""
    if d.cause != "gradient":
        return None
    idx = diag_index(logdir)
    with idx.lock:
        if d.forward is None:  # an untraced backward function's call
            if d.origin_index not in seen:
                seen[d.origin_index] = untraced_forwards(idx, d)
            found = [(i, gid) for ident, gid in seen[d.origin_index]
                     for i in items if (ident, step) in i.origins]
            if len({id(i) for i, _ in found}) != 1:
                return None  # none, or several: better no pairing than a wrong one
            inc, gid = found[0]
            return inc if reads_forward_call(idx, d.origin_index, gid) else None
        if not is_backward_of_origin(d):
            return None
        want = (forward_identity(d.forward), step)
        hit = next((i for i in items if want in i.origins), None)
        return hit if hit is not None and reads_forward(idx, d) else None


def _step_overflow(items: list[Incident], d: Diagnosis, step: int | None) -> Incident | None:
    """The incident of the first overflow in `step`, when `d` is an overflow too: one step's
    values past float32's range are one incident (`reader.diagnosis.overflows`)."""
    if step is None or not is_overflow(d, recorded=False):
        return None
    return next((i for i in items if i.diagnosis is not None and is_overflow(i.diagnosis)
                 and any(s == step for _, s in i.origins)), None)


def _op_type(logdir: DebugLogdir, kind: int, index: int) -> str:
    return (logdir.op_type_of_trace(index) if kind == GRAPH
            else logdir.op_type_of_execution(index))
