"""How one row of a list looks: health chips, graph trace rows, eager rows, alert rows.

Why here and not in the panes: the same health summary appears in Graph Executions, the
Timeline and Alerts, and the benchmark cares about exactly this code (it runs for every
visible line on every repaint), so it is written once, reads numpy scalars directly and
builds one `Text` per row. Every string from the logdir goes through `textutil`.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from reader import EAGER, DebugLogdir
from reader.diagnosis.functions import function_label
from reader.diagnosis.incidents import Incident
from reader.index.schema import HealthRow
from reader.io.tensors import dtype_name
from tfdbg_tui.core.textutil import fit_middle, lit, pad

WARN = "bold #ff5f5f"  # NaN / ∞ counts: the warning colour
WARN_CHIP = "bold #ffffff on #b30000"
DIM = "dim"
MARK_STYLE = "bold #5fd7ff"

_SHORT_DTYPES = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16"}


def health_chips(h: HealthRow, *, compact: bool = False, counts_only: bool = False) -> Text:
    """The health summary of one tensor row (a graph trace or an eager output).

    Shows what the mode recorded: dtype, rank, size, then counts of NaN, −∞, +∞ (in the
    warning colour when non-zero) and of negative, zero and positive values as labelled
    pairs ("−:981 0:18 +:0"; Graph Executions' status line says what they mean). "-1"
    columns (not recorded) are left out; so are dtype, rank and size with `counts_only` (a
    narrow row: the counts are what it is read for).
    """
    dtype, rank, size = h.dtype, h.rank, h.size
    nan, ninf, pinf = h.nan, h.neg_inf, h.pos_inf
    neg, zero, pos = h.neg, h.zero, h.pos
    bad = h.bad
    out = Text(no_wrap=True, end="")
    if counts_only:
        dtype = rank = size = -1
    if dtype >= 0:
        name = dtype_name(dtype)
        out.append(_SHORT_DTYPES.get(name, name) if compact else name, DIM)
        out.append(" ")
    if rank >= 0:
        out.append(f"{rank}D ", DIM)
    if size >= 0:
        out.append(f"×{size} ", DIM)
    counted = nan >= 0 or ninf >= 0 or pinf >= 0
    if counted:
        for label, n in (("NaN", nan), ("−∞", ninf), ("+∞", pinf)):
            if n > 0:
                out.append(f"{label} {n}", WARN_CHIP)
                out.append(" ")
    elif bad == 1:
        out.append("NaN/∞", WARN_CHIP)
        out.append(" ")
    if neg >= 0:  # labelled pairs: "−:981 0:18 +:0" (negative, zero, positive)
        out.append(f"−:{neg} 0:{zero} +:{pos}", "")
    elif bad == 0:
        out.append("finite", "green")
    if not out.plain.strip():
        out.append("—" if bad < 0 else "", DIM)
    out.rstrip()
    return out


HEALTH_NEED = 34  # cells of a compact health summary with a NaN chip and 4-digit counts
MIN_NAME = 8  # the narrowest a name gets to leave a row's counts room ("gradi…:0")


def columns(width: int, n_rows: int) -> tuple[int, int, int, int]:
    """(index, name, type, health) widths for a tensor row of `width` cells. The counts
    come before the name: a name is shortened in its middle and stays recognisable, a cut
    count ("−:981 0:") says nothing (the first screen at 160×45 cut them). A row whose
    counts need more than `HEALTH_NEED` narrows its own name further (`name_room`)."""
    idx_w = max(2, len(str(max(n_rows - 1, 0))))
    type_w = 14 if width >= 110 else (10 if width >= 70 else 0)
    rest = width - idx_w - type_w - 3
    name_w = max(12, min(48, rest - HEALTH_NEED, max(rest // 2, rest - 2 * HEALTH_NEED)))
    health_w = max(0, rest - name_w)
    return idx_w, name_w, type_w, health_w


def trace_row(logdir: DebugLogdir, i: int, width: int, n_rows: int, marker: str = " ",
              device: str = "") -> Text:
    """One Graph Executions row: index, op name:slot, op type, health, and the (short)
    device when the run has several (replicas of a MirroredStrategy differ only there)."""
    t = logdir.traces
    idx_w, name_w, type_w, _ = columns(width, n_rows)
    strings = logdir.strings
    bad = int(t.bad[i]) == 1
    chips = health_chips(t.health(i), compact=width < 110)
    after = f"  {lit(device)}" if device else ""
    used = 1 + idx_w + 1 + 1 + (type_w + 1 if type_w else 0)  # marker, index, type, spaces
    name_w = name_room(name_w, width - used - chips.cell_len - cell_len(after))
    row = Text(no_wrap=True, end="")
    row.append(marker, MARK_STYLE)
    row.append(f"{i:>{idx_w}} ", WARN if bad else DIM)
    name = f"{lit(strings[int(t.op_name[i])])}:{int(t.slot[i])}"
    row.append(pad(name, name_w), "bold" if bad else "")
    row.append(" ")
    if type_w:
        row.append(pad(lit(strings[int(t.op_type[i])] or "?"), type_w), "cyan")
        row.append(" ")
    row.append_text(chips)
    if after:
        row.append(after, MARK_STYLE)
    return row


def name_room(name_w: int, room: int) -> int:
    """The width of a row's name: `name_w`, narrowed to `room` (what the row's counts leave)
    but never below `MIN_NAME` nor above `name_w` (the column stays aligned when it fits)."""
    return max(min(MIN_NAME, name_w), min(name_w, room))


def execution_row(logdir: DebugLogdir, i: int, width: int, n_rows: int,
                  n_outputs: int, bad: bool, host: str = "") -> Text:
    """One Timeline row: index, op type (or the tf.function's own name), outputs' health,
    and the host when the run has several (their timelines are merged in wall-time order)."""
    ex = logdir.execution(i)
    idx_w = max(2, len(str(max(n_rows - 1, 0))))
    is_call = ex.graph_id is not None
    rows = logdir.output_rows(i)
    after = f"  {lit(host)}" if host else ""
    health = _outputs_health(logdir, rows, n_outputs, ex.num_outputs, False)
    if idx_w + 3 + MIN_NAME + health.cell_len + cell_len(after) > width:
        # too narrow for all of it (the Timeline at 120×32): the counts before dtype and
        # shape; what still does not fit ends in "…" and scrolls sideways (→)
        health = _outputs_health(logdir, rows, n_outputs, ex.num_outputs, True)
    name_w = max(12, min(40, width - idx_w - 4 - 24))  # room for one output's counts
    name_w = name_room(name_w, width - idx_w - 3 - health.cell_len - cell_len(after))
    row = Text(no_wrap=True, end="")
    row.append(f" {i:>{idx_w}} ", WARN if bad else DIM)
    # a tf.function call by its user's name (`train_step`), not `__inference_train_step_12`
    row.append(pad(lit(function_label(ex.op_type)), name_w),
               "bold magenta" if is_call else ("bold" if bad else ""))
    row.append(" ")
    row.append_text(health)
    if after:
        row.append(after, MARK_STYLE)
    return row


def _outputs_health(logdir: DebugLogdir, rows: range, n_outputs: int, n_out: int,
                    counts_only: bool) -> Text:
    """An execution's outputs' health, the first three of them (see `health_chips`)."""
    health = Text(no_wrap=True, end="")
    count = len(rows)
    shown = 0
    for k in rows:
        if k >= n_outputs:  # not in the snapshot yet
            break
        if shown:
            health.append(" │ ", DIM)
        if count > 1:
            health.append(f"{int(logdir.outputs.slot[k])}: ", DIM)
        health.append_text(health_chips(logdir.outputs.health(k), compact=True,
                                        counts_only=counts_only))
        shown += 1
        if shown >= 3:
            if count > 3:
                health.append(f" … +{count - 3} outputs", DIM)
            break
    if not count:
        health.append(f"{n_out} output{'s' if n_out != 1 else ''}" if n_out else "no outputs",
                      DIM)
    return health


def bad_counts(h: HealthRow | None) -> Text:
    """The NaN / −∞ / +∞ counts of one tensor as warning chips ("NaN/∞" when the mode
    records only that something is bad, "health ?" when nothing is known)."""
    out = Text(no_wrap=True, end="")
    if h is None:
        out.append("health ?", DIM)
        return out
    counted = h.nan >= 0 or h.neg_inf >= 0 or h.pos_inf >= 0
    if counted:
        for label, n in (("NaN", h.nan), ("−∞", h.neg_inf), ("+∞", h.pos_inf)):
            if n > 0:
                if out.plain:
                    out.append(" ")
                out.append(f"{label} {n:,}", WARN_CHIP)
    if not out.plain:
        out.append("NaN/∞", WARN_CHIP)
    if out.cell_len < 5:  # one column for the common case of one count ("NaN 1")
        out.append(" " * (5 - out.cell_len))
    return out


def incident_row(inc: Incident, total: int, shown: int, collapsed: bool, width: int) -> Text:
    """An incident's header in Alerts: ▼/▶ (its alerts shown or folded), its number, step,
    origin (op, and the user's function), how many alerts are downstream of it (`shown` of
    them when a filter hides some), then its diagnosis' explanation while there is room.
    Narrow, the words go first ("downstream", the function), never the op or the count."""
    d = inc.diagnosis
    head = Text(no_wrap=True, end="", style="bold")
    head.append("▶ " if collapsed else "▼ ", MARK_STYLE)
    head.append(f"{inc.number}/{total} " if total > 1 else "", MARK_STYLE)
    if inc.step is not None:
        head.append(f"step {inc.step} ", "bold")
    origin = lit(function_label(inc.origin_name))  # a call: `train_step`
    uf = d.origin_user_frame if d is not None else None
    where = f" in {lit(uf.function)}" if uf is not None and uf.function != "<module>" else ""
    s = "" if inc.alerts == 1 else "s"
    counts = ([f"{inc.alerts:,} alert{s} downstream", f"{inc.alerts:,} alert{s}"]
              if shown == inc.alerts else [f"{shown:,} of {inc.alerts:,} alerts"])
    room = width - head.cell_len - 3
    name, count = origin + where, counts[-1]
    for cand_name, cand_count in ((origin + where, counts[0]), (origin + where, counts[-1]),
                                  (origin, counts[-1])):
        if cell_len(cand_name) + cell_len(cand_count) <= room:
            name, count = cand_name, cand_count
            break
    else:
        name = fit_middle(origin, max(8, room - cell_len(count)))
    row = head
    row.append(name, WARN)
    row.append(" · ")
    row.append(count)
    why = d.explanation if d is not None else (inc.error or "not diagnosed")
    if width - row.cell_len >= 24:  # enough of it to read (the diagnosis line has it all)
        row.append(" · ")
        row.append(lit(why), "not bold italic")
    return row


def alert_row(logdir: DebugLogdir, number: int, kind: int, index: int, slot: int,
              t0: float, wall: float, width: int, step: int | None = None) -> Text:
    """One Alerts row, in the order a user needs it when the pane is narrow: alert number,
    its training step ("s2", when the run has steps), the NaN/∞ counts, the tensor's name
    (shortened in the middle), then — while there is room — its op type, its row number and
    the time since the first record."""
    row = Text(no_wrap=True, end="")
    row.append(f"{number + 1:>3} ", DIM)
    if step is not None:
        row.append(f"s{step} ", "bold")
    if kind == EAGER:
        op_type = lit(function_label(logdir.op_type_of_execution(index)))
        name, kind_text, kind_style = f"{op_type}:{slot}", "eager", "magenta"
        h = logdir.tensor_health(EAGER, index, slot)
    else:
        name = lit(logdir.trace_name(index))
        kind_text, kind_style = lit(logdir.op_type_of_trace(index)), "cyan"
        h = logdir.traces.health(index)
    row.append_text(bad_counts(h))
    row.append(" ")
    rest = width - row.cell_len
    extras = [(f" {kind_text}", kind_style), (f" #{index}", DIM),
              (f" t+{max(0.0, wall - t0):.3f}s", DIM)]
    row.append(fit_middle(name, max(8, rest)), "bold")
    room = width - row.cell_len
    for text, style in extras:
        if cell_len(text) > room:
            break
        row.append(text, style)
        room -= cell_len(text)
    return row
