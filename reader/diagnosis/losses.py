"""The loss of each training step ("loss 0.53, 0.88, 0.26, +∞, +∞, NaN"), when the run says it.

The logdir records no "loss": it is found from the shape of the step, in whichever form the
run trained (`reader.diagnosis.steps`), and only ever read from a recorded tensor — a step
whose loss was not recorded is unknown, never guessed. Where it is looked for, first found
first:
- **TF1 `tf.gradients` / `minimize`**: the tensor differentiated. Its gradient ops are named
  `gradients/<loss op>_grad/…`, and the first such scope created is the loss op's.
- **Keras `fit`**: the last scalar its graph computes under a name holding "loss" (its
  `compile_loss/…`), outside the gradient.
- **a `GradientTape` in a `tf.function`**: the last scalar the graph creates before its
  first `gradient_tape/` op (the forward pass ends with the loss; the tape's gradient starts
  from a constant 1 and never reads it).
- **a `tf.function` step that returns the loss**: its call's first output, when one float.
- **an eager `GradientTape`**: the last scalar an eager op computed before the first op run
  by `tape.gradient` (its stack passes through TensorFlow's backprop.py), in each step.
FULL_TENSOR records the loss' value; the health modes only whether it was finite, NaN or ∞
(`StepLosses.values` holds NaN/±∞ then, and None for a finite loss; `state` says which).
Under mixed precision the tape differentiates the *scaled* loss (`LossScaleOptimizer.
scale_loss`: the loss times 2**15 or so): the ops a loss-scale optimizer ran are passed over,
so the loss is the one the user computed, not that product.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from reader.diagnosis.functions import function_label
from reader.diagnosis.step_model import EAGER_STEP, TrainingSteps
from reader.diagnosis.steps import GRADIENT_MARKS, backprop_frames
from reader.errors import ReaderError
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER, GRAPH
from reader.modes import FULL_TENSOR, MODE_NAMES

FLOAT_DTYPES = frozenset({1, 2, 14, 19})  # DT_FLOAT, DT_DOUBLE, DT_BFLOAT16, DT_HALF
# ops whose scalar output is not a computed loss (a variable's value, a constant, a shape)
NOT_A_LOSS = frozenset({"ReadVariableOp", "Const", "Placeholder", "VarHandleOp", "Identity",
                        "Fill", "Shape", "Size", "Rank", "NoOp", "AssignVariableOp",
                        "AssignAddVariableOp", "AssignSubVariableOp"})
LOOK_BACK = 16  # ops looked at before the gradient's first, for the loss
_TF1_GRAD = re.compile(r"(?:^|/)gradients(?:_\d+)?/(.+?)_grad/")
# Keras 3, tf.keras and TensorFlow's own: where `scale_loss` multiplies the loss
_LOSS_SCALE_FILE = "loss_scale_optimizer.py"
# per-step states (`StepLosses.state`)
VALUE, FINITE, UNKNOWN = "value", "finite", "unknown"


@dataclass(frozen=True)
class StepLosses:
    """The loss per step (the first `len(values)` steps) and how it was found.

    `values[k]`: the loss of step k (NaN/±∞ included), None when its value is not known;
    `state[k]`: "value" (in `values`), "finite" (recorded finite, its value not recorded in
    this mode), "nan", "inf", "-inf" (in `values` too), or "unknown" (not recorded for that
    step). `found`: how the loss tensor was found, in words ("" when it was not); `note`:
    what the user should know (why it was not found, why the values are missing)."""

    values: list[float | None]
    state: list[str]
    found: str
    tensor: str
    note: str

    @property
    def any_known(self) -> bool:
        return any(s != UNKNOWN for s in self.state)


def _state(v: float | None, known: bool) -> str:
    if not known:
        return UNKNOWN
    if v is None:
        return FINITE
    if math.isnan(v):
        return "nan"
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    return VALUE


def step_losses(logdir: DebugLogdir, steps: TrainingSteps, limit: int = 2000) -> StepLosses:
    """The loss of each of the first `limit` steps (see the module docstring)."""
    n = min(steps.count, limit)
    if not n:
        return StepLosses([], [], "", "", "no training steps")
    finders = ((_tf1_rows, "the tensor tf.gradients differentiates"),
               (_named_rows, "the last scalar named …loss… outside the gradient (Keras)"),
               (_tape_rows, "the last scalar the tf.function computes before its "
                            "GradientTape's gradient"))
    unrecorded = ""  # a loss op found that never ran: said rather than another guess
    for finder, how in finders:
        rows, name = finder(logdir, steps, n)
        if rows is not None and (rows >= 0).any():
            return _read(logdir, GRAPH, rows, how, name)
        if rows is not None and name and finder is _tf1_rows:
            unrecorded = (f"the loss ({name}, {how}) never ran, so nothing recorded it: "
                          "the training op's gradient does not need its value; fetch the "
                          "loss in Session.run beside the training op to record it")
    if unrecorded:
        return StepLosses([None] * n, [UNKNOWN] * n, "", "", unrecorded)
    if steps.calls is not None:
        calls = np.asarray(steps.calls[:n], np.int64)
        if all(_scalar(logdir, EAGER, int(c)) for c in calls[:1].tolist()):
            return _read(logdir, EAGER, calls, "the value the step's tf.function call returns",
                         steps.function or "train_step")
    if steps.form == EAGER_STEP:
        rows, name = _eager_rows(logdir, steps, n)
        if (rows >= 0).any():
            return _read(logdir, EAGER, rows, "the last scalar computed before "
                         "tape.gradient, in each eager step", name)
    return StepLosses([None] * n, [UNKNOWN] * n, "", "", "no loss found: no scalar is "
                      "computed before the gradient, and no tensor is named …loss…")


def _read(logdir: DebugLogdir, kind: int, rows: np.ndarray, how: str, name: str
          ) -> StepLosses:
    name = f"{name} ({where})" if (where := _where(logdir, kind, rows)) else name
    values: list[float | None] = []
    state: list[str] = []
    modes = set()
    for row in rows.tolist():
        v, known, mode = _loss_at(logdir, kind, int(row)) if row >= 0 else (None, False, -1)
        values.append(v)
        state.append(_state(v, known))
        if known:
            modes.add(mode)
    note = ""
    if FINITE in state:
        names = ", ".join(sorted(MODE_NAMES.get(m, str(m)) for m in modes if m != FULL_TENSOR))
        note = (f"· finite: {names or 'this mode'} records whether the loss is NaN or ∞, "
                "not its value; FULL_TENSOR does")
    if UNKNOWN in state:
        missing = state.count(UNKNOWN)
        note = (note + "; " if note else "") + (
            f"? not recorded in {missing} step{'' if missing == 1 else 's'}")
    return StepLosses(values, state, how, name, note)


def _where(logdir: DebugLogdir, kind: int, rows: np.ndarray) -> str:
    """"train.py:41": the user's line that made the loss (its first row's)."""
    row = next((int(r) for r in rows.tolist() if r >= 0), None)
    if row is None:
        return ""
    try:
        frames = logdir.alert_stack(kind, row)
    except (ReaderError, KeyError, ValueError):
        return ""
    uf = logdir.user_frame(frames)
    return f"{uf.file.replace(chr(92), '/').rsplit('/', 1)[-1]}:{uf.line}" if uf else ""


def _loss_at(logdir: DebugLogdir, kind: int, index: int) -> tuple[float | None, bool, int]:
    """(value, recorded, mode) of a scalar row: the value in FULL_TENSOR, NaN/±∞ from the
    health counts, None for a finite loss whose value is not recorded."""
    if kind == EAGER and int(logdir.executions.n_outputs[index]) < 1:
        return None, False, -1
    h = logdir.tensor_health(kind, index, 0)
    mode = logdir.tensor_mode(kind, index)
    if h is None or h.size not in (1, -1):
        return None, False, mode
    if mode == FULL_TENSOR:
        try:
            tv = (logdir.read_trace(index).value if kind == GRAPH
                  else next(iter(logdir.read_execution(index).debug_tensors), None))
        except ReaderError:
            return None, False, mode
        values = np.asarray(tv.values) if tv is not None else None
        if values is not None and values.size == 1 and np.issubdtype(values.dtype,
                                                                     np.floating):
            return float(values.reshape(-1)[0]), True, mode
        return None, False, mode
    if h.nan > 0:
        return float("nan"), True, mode
    if h.pos_inf > 0:
        return float("inf"), True, mode
    if h.neg_inf > 0:
        return float("-inf"), True, mode
    if h.bad == 0:
        return None, True, mode
    return None, False, mode


def _scalar(logdir: DebugLogdir, kind: int, index: int) -> bool:
    """Whether a row holds one float (dtype unknown in some modes: then its size alone)."""
    if kind == EAGER and int(logdir.executions.n_outputs[index]) < 1:
        return False
    h = logdir.tensor_health(kind, index, 0)
    return h is not None and h.size == 1 and (h.dtype in FLOAT_DTYPES or h.dtype < 0)


# ---------------------------------------------------------------------------- graph steps
def _op_rows(logdir: DebugLogdir, steps: TrainingSteps, n: int, op_names: set[str],
             graphs: set[str] | None = None) -> np.ndarray:
    """Per step (first `n`), the last trace row of one of `op_names` (in `graphs` when
    given) holding a scalar, else -1."""
    out = np.full(n, -1, np.int64)
    kinds = logdir.trace_kinds()
    if kinds is None or not len(kinds.of_row) or not op_names:
        return out
    want = np.array([logdir.strings[int(i)] in op_names for i in kinds.op_name], dtype=bool)
    if graphs is not None:
        sids = [s for s in (logdir.strings.lookup(g) for g in graphs) if s >= 0]
        want &= np.isin(kinds.graph_id, sids)
    rows = np.flatnonzero(want[np.asarray(kinds.of_row)])
    rows = rows[np.asarray(logdir.traces.slot[rows]) == 0] if len(rows) else rows
    if not len(rows):
        return out
    st = steps.trace_step[rows]
    keep = (st >= 0) & (st < n)
    rows, st = rows[keep], st[keep]
    try:
        sizes = np.asarray(logdir.traces.health_columns(rows)["size"])
    except LookupError:
        return out
    scalar = (sizes == 1) | (sizes < 0)
    np.maximum.at(out, st[scalar], rows[scalar])
    return out


def _training_graphs(logdir: DebugLogdir) -> dict[str, list[str]]:
    """Graph id → its op names in creation order, for graphs holding gradient ops."""
    out = {}
    for gid, g in logdir.graphs.graphs.items():
        names = list(g.ops)
        if any(m in name for name in names for m in GRADIENT_MARKS):
            out[gid] = names
    return out


def _tf1_rows(logdir: DebugLogdir, steps: TrainingSteps, n: int
              ) -> tuple[np.ndarray | None, str]:
    """TF1: the op whose `gradients/<op>_grad/` scope is created first in its graph."""
    for gid, names in _training_graphs(logdir).items():
        ops = logdir.graphs.graphs[gid].ops
        for name in names:
            m = _TF1_GRAD.search(name)
            if m is not None and m.group(1) in ops:
                loss = m.group(1)
                return _op_rows(logdir, steps, n, {loss}, {gid}), loss
    return None, ""


def _named_rows(logdir: DebugLogdir, steps: TrainingSteps, n: int
                ) -> tuple[np.ndarray | None, str]:
    """Keras: per step, the last scalar under a name holding "loss", not a gradient."""
    kinds = logdir.trace_kinds()
    if kinds is None:
        return None, ""
    names = {logdir.strings[int(i)] for i in kinds.op_name}
    lossy = {nm for nm in names if "loss" in nm.lower()
             and not any(m in nm for m in GRADIENT_MARKS)}
    rows = _op_rows(logdir, steps, n, lossy)
    found = {logdir.op_name_of_trace(int(r)) for r in rows.tolist() if r >= 0}
    return rows, ", ".join(sorted(found)[:2])


def _tape_rows(logdir: DebugLogdir, steps: TrainingSteps, n: int
               ) -> tuple[np.ndarray | None, str]:
    """A tape in a tf.function: the last scalar op created before the first gradient op."""
    for gid, names in _training_graphs(logdir).items():
        ops = logdir.graphs.graphs[gid].ops
        first = next(k for k, nm in enumerate(names) if any(m in nm for m in GRADIENT_MARKS))
        looked = 0
        scaling = _scaling_frames(logdir)
        for name in reversed(names[:first]):
            if ops[name].op_type in NOT_A_LOSS or scaling.intersection(
                    ops[name].stack_frame_ids):
                continue
            rows = _op_rows(logdir, steps, n, {name}, {gid})
            if (rows >= 0).any():
                return rows, name
            looked += 1
            if looked >= LOOK_BACK:
                break
    return None, ""


def _scaling_frames(logdir: DebugLogdir) -> frozenset[str]:
    """Ids of the stack frames in a loss-scale optimizer's code (`scale_loss`)."""
    return frozenset(fid for fid, _host, file, _line, _func, _col in logdir.sources.frame_rows()
                     if file.replace("\\", "/").endswith(_LOSS_SCALE_FILE))


# ---------------------------------------------------------------------------- eager steps


def _eager_rows(logdir: DebugLogdir, steps: TrainingSteps, n: int) -> tuple[np.ndarray, str]:
    """Per eager step, the last scalar output before the first op `tape.gradient` ran."""
    out = np.full(n, -1, np.int64)
    backprop = backprop_frames(logdir)
    if not backprop:
        return out, ""
    scaling = _scaling_frames(logdir)
    at = np.flatnonzero(steps.exec_step >= 0)  # executions in a step, in order
    st = steps.exec_step[at]
    if len(st) and (np.diff(st) < 0).any():
        return out, ""  # steps are runs of executions; anything else is not an eager loop
    offset: int | None = None  # where the backward began in the step before (same program)
    name = ""

    def ran_in(i: int, frames: frozenset[str]) -> bool:
        try:
            rec = logdir.read_execution(i)
        except ReaderError:
            return False
        return any(f in frames for f in rec.stack_frame_ids)

    def in_backward(i: int) -> bool:
        return ran_in(i, backprop)

    for k in range(n):
        a, b = np.searchsorted(st, [k, k + 1], "left").tolist()
        if a >= b:
            continue
        lo, hi = int(at[a]), int(at[b - 1]) + 1
        first: int | None
        if offset is not None and lo + offset < hi and in_backward(lo + offset) \
                and not in_backward(lo + offset - 1):
            first = lo + offset  # the step before's shape: two reads, not a scan
        else:
            first = next((i for i in range(lo, hi) if in_backward(i)), None)
        if first is None:
            continue
        offset = first - lo
        for i in range(first - 1, max(lo, first - LOOK_BACK) - 1, -1):
            if logdir.op_type_of_execution(i) in NOT_A_LOSS:
                continue
            if _scalar(logdir, EAGER, i) and not (scaling and ran_in(i, scaling)):
                out[k] = i
                name = name or f"eager {function_label(logdir.op_type_of_execution(i))}"
                break
    return out, name
