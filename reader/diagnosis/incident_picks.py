"""Which alerts the incidents walk back one by one (`reader.diagnosis.incidents`).

Diagnosing every alert would cost millions of walks; diagnosing the first `--limit` made the
incidents depend on how many alerts the user asked to see (an independent origin that is the
12th alert of its step was found at `--limit 20`, not at 10). So the alerts diagnosed are
chosen from the alerts alone:
- the first FIRST_ALERTS alerts, where the story begins;
- in each step where incidents can begin — the first alert's step, and every step with
  alerts after a step without any (at most MAX_NEW_STARTS of those); a run without training
  steps is one such step — the first alert of every kind of tensor (a graph op's output, an
  eager op type), in time order: an independent origin of that step (a gradient that
  overflows on its own, after the loss did) is an op of its own, however many alerts of
  other ops come before it;
- in each later step with alerts (the first MAX_LATER), its first alert — so its alerts are
  counted with what that alert walks back to (the weights' origin, usually), not with the
  last alert diagnosed before — and the first alert of each kind no earlier step showed (a
  gradient that overflows only once the loss has been ∞ for a while).
Caps: MAX_KINDS kinds a step among its first SCAN alerts, MAX_DIAGNOSES walks of kinds in
all. Cost: one walk per kind (~10 ms). On the 12.5M-record benchmark logdir (no training
steps; 12 kinds among its first alerts) `benchmarks.run --only scale` at load 2 gave
`report --json` 4.25 s cold, 0.62 s warm, against 4.38 s and 0.60 s with the first ten
alerts diagnosed (find_incidents: 0.29 s against 0.27 s, CPU time, first call).
What this cannot see: a second origin of a kind already diagnosed in that step (an eager
kind is its op type: two different Muls are one kind), one past the caps, and one whose
kind alerted in an earlier step of a run that never went clean in between.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from reader.diagnosis.step_model import TrainingSteps
from reader.index.alerts import Alerts
from reader.index.logdir import DebugLogdir
from reader.index.schema import GRAPH

FIRST_ALERTS = 10  # the first alerts, always diagnosed
MAX_NEW_STARTS = 20  # steps after a clean step whose every kind is diagnosed
MAX_LATER = 64  # other steps with alerts: their first alert and kinds new to the run
MAX_KINDS = 128  # kinds diagnosed in one step
SCAN = 1 << 16  # alerts of one step looked at for their kinds
MAX_DIAGNOSES = 512  # walks of kinds in all (the earliest steps' first)
BLOCK = 1 << 18  # alerts whose kinds (or steps) are looked at a time (temporaries ~8 MB)


@dataclass(frozen=True)
class Segment:
    """The first SCAN alert positions of one step (ascending), and whether incidents can
    begin there (every kind diagnosed) or not (its first alert and kinds new to the run)."""

    positions: np.ndarray
    begins: bool


def segments(steps: TrainingSteps | None, alert_steps: np.ndarray | None,
             n: int) -> list[Segment]:
    """The steps looked at, in step order (see the module docstring); the first holds
    position 0 (the alerts before the first step's, when the first is outside every step)."""
    if n == 0:
        return []
    if steps is None or alert_steps is None or not steps.count:
        return [Segment(np.arange(min(n, SCAN)), True)]
    out = []
    if alert_steps[0] < 0:
        inside = np.flatnonzero(alert_steps[:SCAN] >= 0)
        out.append(Segment(np.arange(int(inside[0]) if len(inside) else min(n, SCAN)), True))
    per = np.bincount(alert_steps[alert_steps >= 0], minlength=steps.count)
    bad = np.flatnonzero(per)
    if not len(bad):
        return out
    fresh = np.flatnonzero((per[1:] > 0) & (per[:-1] == 0)) + 1
    first = int(bad[0]) if alert_steps[0] < 0 else int(alert_steps[0])
    begun = {first, *fresh[fresh != first][:MAX_NEW_STARTS].tolist()}
    later = np.setdiff1d(bad, list(begun))[:MAX_LATER]
    wanted = np.union1d(list(begun), later)
    found = _step_positions(alert_steps, wanted, n)
    out += [Segment(found[s], s in begun) for s in wanted.tolist() if s in found]
    return out


def _step_positions(alert_steps: np.ndarray, wanted: np.ndarray, n: int
                    ) -> dict[int, np.ndarray]:
    """Per step of `wanted`, the positions of its first SCAN alerts, a block at a time, up
    to the first block past the last step wanted (alerts come in time order)."""
    got: dict[int, list[np.ndarray]] = {}
    count: dict[int, int] = {}
    top = int(wanted[-1])
    for lo in range(0, n, BLOCK):
        block = np.asarray(alert_steps[lo:lo + BLOCK])
        at = np.flatnonzero(np.isin(block, wanted))
        st = block[at]
        for s in np.unique(st).tolist():
            room = SCAN - count.get(s, 0)
            if room > 0:
                take = lo + at[st == s][:room]
                got.setdefault(s, []).append(take)
                count[s] = count.get(s, 0) + len(take)
        inside = block[block >= 0]
        if len(inside) and int(inside.min()) > top:
            break
    return {s: np.concatenate(parts) for s, parts in got.items()}


def pick(logdir: DebugLogdir, alerts: Alerts, segs: list[Segment]) -> list[int]:
    """Alert positions to diagnose (see the module docstring), ascending, 0 first."""
    n = len(alerts)
    picked: set[int] = set(range(min(FIRST_ALERTS, n)))
    seen = np.zeros(0, np.int64)
    walks = 0
    for seg in segs:
        at = seg.positions
        if not len(at):
            continue
        picked.add(int(at[0]))
        codes = np.concatenate([kind_codes(logdir, np.asarray(alerts.kind[b]),
                                           np.asarray(alerts.index[b]))
                                for b in np.array_split(at, -(-len(at) // BLOCK))])
        kinds, first = np.unique(codes, return_index=True)
        order = np.argsort(first)  # each kind's first alert, in time order
        kinds, first = kinds[order], first[order]
        if not seg.begins:
            first = first[~np.isin(kinds, seen)]
        room = max(0, min(MAX_KINDS, MAX_DIAGNOSES - walks))
        chosen = at[first[:room]].tolist()
        walks += len(chosen)
        picked.update(chosen)
        seen = np.union1d(seen, kinds)
    return sorted(picked | ({0} if n else set()))  # every alert is counted from 0 on


def code_types(logdir: DebugLogdir) -> np.ndarray:
    """Per kind code (the trace kinds, then the execution kinds), the op type (string id,
    -1 unknown) it stands for."""
    tk = logdir.traces.kind_op_types()
    ek = np.asarray(logdir.executions.kinds.col("op_type")
                    if logdir.executions.kinds is not None else np.zeros(0, np.int32))
    tk = np.zeros(0, np.int32) if tk is None else tk
    return np.concatenate([tk, ek]).astype(np.int64)


def kind_codes(logdir: DebugLogdir, kinds: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Per alert (a block of them), a code for its row's kind: a trace kind, or after them
    an execution kind (see `code_types`)."""
    tk = logdir.traces.kind_op_types()
    n_trace_kinds = 0 if tk is None else len(tk)
    codes = np.empty(len(kinds), np.int64)
    graph = kinds == GRAPH
    codes[graph] = logdir.traces.kind_ids[indices[graph]]
    codes[~graph] = (logdir.executions.col("kind")[indices[~graph]].astype(np.int64)
                     + n_trace_kinds)
    return codes
