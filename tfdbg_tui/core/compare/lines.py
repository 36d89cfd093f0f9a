"""Which lines of each program to show for a paired quantity, shared by `diff` and the TUI.

Why here: the line a user should change is often not the tensor's own. A loss's or an
update's line is where the loss function is called or the optimizer's update op is made (an
update is compared as the variable read at the next step, whose own line is the forward
pass); a loss, learning rate, update or state is made by an object (a loss, schedule,
optimizer or layer) constructed on a line no recorded stack holds (`creation`); a layer's op
run by `fit` or by calling a functional model carries only that call; a penalty one run lacks
is best shown at the weight the other run regularizes. `place` decides each side's lines
once, as plain data: `diff` writes them into its JSON (`commands.diff_lines`), the TUI shows
them in Stack Trace and Source Code (`ui.compare`), so both name the same lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

import numpy as np

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame, program_frames
from tfdbg_tui.core.compare.contract import (
    Q_APPLIED,
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_LR,
    Q_OTHER,
    Q_REG,
    Q_STATE,
    Q_UPDATE,
    Q_VARIABLE,
    node_frames,
)
from tfdbg_tui.core.compare.creation import (
    Creation,
    drives_keras,
    find_creation,
    find_layer_creation,
    layer_build,
    statement_lines,
)
from tfdbg_tui.core.compare.departed import departed
from tfdbg_tui.core.compare.layer_weights import made_in_layer, penalized_read, weights_creation
from tfdbg_tui.core.compare.loss_departed import loss_departed
from tfdbg_tui.core.compare.pairs import DIFFERENT, R_NONFINITE
from tfdbg_tui.core.compare.penalty_layer import penalty_creation
from tfdbg_tui.core.compare.result import Comparison
from tfdbg_tui.core.compare.verdict import step_offset

CREATED = (Q_LR, Q_UPDATE)  # quantities made by a schedule or an optimizer object
# quantities made by an object whose construction is the line to change (a loss object, a
# schedule, an optimizer, a batch-norm layer's statistics)
_MADE_BY_OBJECT = (Q_LR, Q_UPDATE, Q_APPLIED, Q_LOSS, Q_STATE)


def where_frames(c: Comparison, p: int, side: str) -> list[Frame] | None:
    """The stack holding pair `p`'s line on `side` when it is not the tensor's own (a loss:
    where the loss function is called; an update: the optimizer's update op); else None."""
    sp = c.training.sp
    if sp is None:
        return None
    got = (sp.where_a if side == "a" else sp.where_b).get(p - step_offset(c))
    if got is None:
        return None
    logdir = c.a if side == "a" else c.b
    flow, node = got
    if flow is None:  # an eager execution outside the flows (an assignment before step 0)
        try:
            return logdir.stack(logdir.read_execution(node).stack_frame_ids) or None
        except (ReaderError, IndexError, KeyError, ValueError):
            return None
    return node_frames(logdir, flow, node) or None


def pair_of_rows(c: Comparison, kind: int, rows: np.ndarray) -> int | None:
    """The pair run A's tensor (`rows` of `kind`: a graph trace, or an eager execution's
    outputs) is shown as: the first divergence when it is one of them (what `diff` names),
    else a learning rate's or an update's pair (the first divergent one first), else the
    pair any of the rows belongs to (a divergent one first); None when unmatched."""
    first = c.first_divergence
    if first is not None and int(c.pairs.kind[first]) == kind \
            and int(c.pairs.a_row[first]) in rows.tolist():
        return first
    p = created_pair(c, "a", kind, rows)
    if p is not None:
        return p
    partner = c.partner_pair("a", kind)
    found = [int(partner[r]) for r in rows if r < len(partner) and partner[r] >= 0]
    return found[0] if found else None


def created_pair(c: Comparison, side: str, kind: int, rows: np.ndarray) -> int | None:
    """The step pair of a learning rate or an update that one of `rows` (of `kind`, on
    `side`) is in — the first divergent one first — or None."""
    off = step_offset(c)
    p = c.pairs
    ids = np.arange(off, len(p))
    if not len(ids) or not len(rows):
        return None
    k = (p.kind if side == "a" else p.kind_b)[ids]
    r = (p.a_row if side == "a" else p.b_row)[ids]
    hit = ids[(k == kind) & np.isin(r, rows) & np.isin(p.quantity[ids], CREATED)]
    if not len(hit):
        return None
    return int(hit[np.argsort(p.status[hit] != DIFFERENT, kind="stable")][0])


@dataclass(frozen=True)
class Line:
    """A line of a program: its frame and its code (stripped; "" when not captured)."""

    frame: Frame
    code: str


@dataclass
class SideLines:
    """Pair `p`'s lines on one side, as `place` decides them (read-only once returned).

    `line` is the line to show (diff's `user_frame`): the tensor's own user line, else the
    line standing for it (`stack` not None: the stack holding it, `where_frames`), else the
    line constructing the object that made it (then the line applying or calling it is
    `applied_at`). `created_at`: the constructing line given beside `line` when `line` stays
    the applying one. `created_by`: the object's class; `creation_unknown`: why its
    constructing line was not found. `applied_nowhere`: `line` moved to a constructing line
    from no line at all (`diff --json` then writes an empty `applied_at`)."""

    kind: int  # GRAPH or EAGER
    index: int  # a graph trace, or an eager execution
    own: list[Frame]  # the tensor's own stack (the op's creation, the execution's)
    line: Line | None
    stack: list[Frame] | None = None
    created_by: str | None = None
    creation_unknown: str | None = None
    created_at: Line | None = None
    applied_at: Line | None = None
    applied_nowhere: bool = False
    op_name: str | None = field(default=None, repr=False)

    @property
    def frames(self) -> list[Frame]:
        """The stack to show: the one holding `line`'s stand-in, else the tensor's own."""
        return self.stack if self.stack is not None else self.own

    @property
    def placed(self) -> bool:
        """Whether anything differs from the tensor's own stack and its user line."""
        return self.stack is not None or self.created_by is not None


def place(c: Comparison, p: int) -> tuple[SideLines, SideLines]:
    """Both sides' lines for pair `p` (`SideLines`): what `diff` prints and `b` shows.

    For a loss, learning rate, update, applied gradient or state, B's line becomes the line
    constructing its object (the applying line kept as `applied_at`); A is the reference run
    (the program that trains well): its line stays the applying one, the constructor given
    beside it (`created_at`). A per-example weighting one run lacks is written at the
    loss's call: B's line stays there too, the constructor beside it. A loss that differs is
    shown where the runs' loss computations depart (`loss_departed`). A layer's output (or
    an unroled op) run by `fit` or a model call shows the line building the layer; a penalty
    one run lacks, the weight the other run regularizes; a layer's moving statistics, the
    line building the layer (momentum and epsilon are written there)."""
    q = int(c.pairs.quantity[p])
    a, b = _own(c, p, "a"), _own(c, p, "b")
    if c.training.sp is not None:
        for s, side in ((a, "a"), (b, "b")):
            _where(c, p, side, s)
    if q == Q_LOSS:  # a loss that differs: where the two loss computations depart
        for s, logdir, frames in zip((a, b), (c.a, c.b), loss_departed(c, p), strict=True):
            uf = logdir.user_frame(frames or [])
            if uf is not None:
                s.line, s.stack = _line(logdir, uf), frames
    if q in _MADE_BY_OBJECT:
        call = q == Q_LOSS and (loss_weighting(c, p) is not None or _out_of_domain(c, p))
        # an update one run projects after its optimizer's write (a constraint): the
        # projection's line and the applying one, the optimizer's constructor beside
        sp = c.training.sp
        call |= q == Q_UPDATE and sp is not None and p - step_offset(c) in sp.projected
        _created(a, c.a, move=False)
        _created(b, c.b, move=not call)
    if q in (Q_LAYER, Q_OTHER):
        _layer(a, c.a, by_weights=lambda owner: weights_creation(c, p, "a", owner))
        _layer(b, c.b, by_weights=lambda owner: weights_creation(c, p, "b", owner))
    elif q == Q_REG:
        for s, side, logdir in ((a, "a", c.a), (b, "b", c.b)):
            name = _where_op(c, p, side)
            if s.stack and name:
                _layer(s, logdir, where=(s.stack, name))
            if s.created_by is None and s.line is not None and (
                    drives_keras(s.line.code) or made_in_layer(s.frames)):
                # fit's penalty, or a layer's activity regularizer: its weight's layer
                read = penalized_read(c, p, side)
                if read is not None:
                    _layer(s, logdir, where=read, by_weights=partial(penalty_creation, c, p, side))
    elif q == Q_STATE and b.created_by is None and _by_layer(b):
        _layer(b, c.b, always=True)  # from a user's `call`: the building line beside
    elif q == Q_VARIABLE:
        _built(a, c.a)
        _built(b, c.b)
    elif q == Q_GRADIENT:  # where the backward pass departs, not the gradient call
        for s, logdir, frames in zip((a, b), (c.a, c.b), departed(c, p), strict=True):
            uf = logdir.user_frame(frames or [])
            if uf is not None:
                s.line, s.stack = _line(logdir, uf), frames
    return a, b


def _out_of_domain(c: Comparison, p: int) -> bool:
    """Whether loss pair `p` is NaN/∞ in one run only while every layer output of its step
    that was compared agrees: the loss function was given values it is not defined on (a
    log-rate passed where a rate is expected: the log of a negative number), so what is
    passed — the call, the model's last layer — is the line, not the loss's constructor."""
    pairs = c.pairs
    if int(pairs.reason[p]) != R_NONFINITE or int(pairs.step[p]) < 0:
        return False
    layers = (pairs.step == pairs.step[p]) & (pairs.quantity == Q_LAYER)
    return bool(layers.any()) and not bool((pairs.status[layers] == DIFFERENT).any())


def loss_weighting(c: Comparison, p: int) -> tuple[bool, bool] | None:
    """(A weights its examples, B does) at pair `p`'s step when exactly one run does (the
    mistake is then at the loss's call, not in its constructor); None otherwise or unknown."""
    from tfdbg_tui.core.compare.contract.weighting import weights_examples

    step = int(c.pairs.step[p])
    if step < 0:
        return None
    wa, wb = weights_examples(c.training.a, step), weights_examples(c.training.b, step)
    if wa is None or wb is None or wa == wb:
        return None
    return wa, wb


def _own(c: Comparison, p: int, side: str) -> SideLines:
    """Pair `p`'s tensor on `side` with its own stack and user line (as the report shows a
    tensor: `tfdbg-tui run`'s own frames left out)."""
    logdir = c.a if side == "a" else c.b
    kind = int(c.pairs.kind[p])
    if side == "b" and int(c.pairs.kind_b[p]) >= 0:
        kind = int(c.pairs.kind_b[p])
    row = int(c.pairs.a_row[p] if side == "a" else c.pairs.b_row[p])
    index = row if kind == GRAPH else int(logdir.outputs.execution[row])
    own = _stack_of(logdir, kind, index)
    uf = logdir.user_frame(program_frames(own)[0])
    op_name = logdir.op_name_of_trace(index) if kind == GRAPH else None
    return SideLines(kind, index, own, _line(logdir, uf) if uf is not None else None,
                     op_name=op_name)


def _line(logdir: DebugLogdir, f: Frame) -> Line:
    return Line(f, (logdir.code_line(f) or "").strip())


def _stack_of(logdir: DebugLogdir, kind: int, index: int) -> list[Frame]:
    try:
        return logdir.alert_stack(GRAPH if kind == GRAPH else EAGER, index)
    except (ReaderError, KeyError, ValueError, IndexError):
        return []


def _where(c: Comparison, p: int, side: str, s: SideLines) -> None:
    """A loss's or an update's line is not the tensor's own: the line calling the loss
    function, the line applying the optimizer's update (`StepPairs.where_a/b`)."""
    frames = where_frames(c, p, side) or []
    logdir = c.a if side == "a" else c.b
    uf = logdir.user_frame(frames)
    if uf is not None:
        s.line, s.stack = _line(logdir, uf), frames


def _where_op(c: Comparison, p: int, side: str) -> str | None:
    """The graph op name of the node standing for pair `p`'s line on `side`, if any."""
    sp = c.training.sp
    got = (sp.where_a if side == "a" else sp.where_b).get(p - step_offset(c)) if sp else None
    if got is None:
        return None
    flow, node = got
    if flow is None or flow.kind != GRAPH:
        return None
    return flow.name[node] if node < len(flow.name) else None


def _same(line: Line | None, frame: Frame) -> bool:
    return line is not None and (line.frame.file, line.frame.line) == (frame.file, frame.line)


def _created(s: SideLines, logdir: DebugLogdir, move: bool) -> None:
    """A learning rate or an update is made by a schedule/optimizer object: the user changes
    the line creating it, not the one applying it (`creation.find_creation`). With `move`
    the applying line becomes `applied_at` and `line` the creating one, when exactly one
    line constructs that class; without, the creating line is given as `created_at`."""
    found = find_creation(logdir, s.stack or s.own)
    if found is None:
        return
    s.created_by = found.owner
    if found.frame is None:
        s.creation_unknown = found.why
        return
    created = Line(found.frame, found.code)
    if not move:
        if not _same(s.line, found.frame):
            s.created_at = created
        return
    applied, s.line = s.line, created
    if applied is not None and not _same(applied, found.frame):
        s.applied_at = applied


def _layer(s: SideLines, logdir: DebugLogdir, always: bool = False,
           where: tuple[list[Frame], str] | None = None,
           by_weights: Callable[[str], Creation | None] | None = None) -> None:
    """A layer's op run by `model.fit`, or by calling a functional or Sequential model
    (`model(x)` outside any `call` of the user's), carries only that line: the line
    building the layer is the one to show (`creation.find_layer_creation`), the calling
    line moves to `applied_at`. `always`: also from a user's `call` (`self.bn(x)`, kept as
    the line: the building line is given beside it, as `created_at`).
    `where`: the stack and op name of the node whose line stands for the tensor's (a
    penalty one run lacks: the read of the weight the other run regularizes).
    `by_weights`: asked for the construction of the class the stack names when the stack
    alone leaves it ambiguous (an eager model call: `layer_weights`)."""
    uf = s.line
    # the user's own `call` method calls the layer on this line: kept unless `always`
    in_call = uf is not None and uf.frame.function == "call" and not drives_keras(uf.code)
    if in_call and not always:
        return
    frames, op_name = where or (s.own, s.op_name)
    found = find_layer_creation(logdir, frames, op_name, _op_names(s, logdir))
    if found is not None and found.frame is None and by_weights is not None:
        found = by_weights(found.owner) or found
    if found is None or found.frame is None:
        return
    s.created_by = found.owner
    created = Line(found.frame, found.code)
    if in_call:
        if not _same(uf, found.frame):
            s.created_at = created
        return
    s.applied_at, s.applied_nowhere, s.line = uf, uf is None, created


def _by_layer(s: SideLines) -> bool:
    """Whether a state's update is a layer's own (batch norm's statistics, assigned in its
    `call`: momentum and epsilon are at the line building it), not the user's assignment (a
    target network synced, an average kept by a callback: that line is the one to change).
    Unknown (no update's stack) counts as a layer's."""
    return s.stack is None or any(_LAYER_CODE.search(f.file) for f in s.stack)


_LAYER_CODE = re.compile(r"[/\\](layers|legacy_tf_layers)[/\\]")


def state_by_user(c: Comparison, p: int) -> bool:
    """Whether state pair `p` is written by the users' own code in both runs (an average or
    a copy of the weights kept after the update), no layer's (batch norm's statistics)."""
    frames = [where_frames(c, p, side) for side in ("a", "b")]
    return all(f is not None and not any(_LAYER_CODE.search(x.file) for x in f)
               for f in frames)


def _op_names(s: SideLines, logdir: DebugLogdir) -> list[str]:
    """The ops of the graph holding `s`'s tensor, in creation order ([] for an eager one)."""
    if s.kind != GRAPH:
        return []
    try:
        graph = logdir.graph(logdir.graph_of_trace(s.index))
        return list(graph.ops) if graph is not None else []
    except (ReaderError, KeyError, ValueError, IndexError):
        return []


def _built(s: SideLines, logdir: DebugLogdir) -> None:
    """A Keras weight whose step-0 value is the draw of the layer building it, built by a
    statement that constructs that layer too (`Sequential([Input(...), Dense(...), ...])`
    builds its layers as it is made): the line the stack shows is the statement's first;
    the layer's constructor within it (`Dense(4, name="out")`, where its initializer is
    chosen) becomes the line, found from the creating stack (the layer's `build`) and the
    variable's name, the statement's first line beside it (`applied_at`). A layer built
    by another statement (`layer.build(shape)`, a model's first call) keeps that line."""
    uf = s.line
    if uf is None or s.stack is None or not layer_build(s.stack):
        return
    found = find_layer_creation(logdir, s.stack, s.op_name, _op_names(s, logdir), "build")
    if found is None or found.frame is None or (found.frame.file, found.frame.host) != (
            uf.frame.file, uf.frame.host):
        return
    span = statement_lines(logdir.source_lines(uf.frame.host, uf.frame.file) or [],
                           uf.frame.line)
    if span is None or not span[0] <= found.frame.line <= span[1] \
            or found.frame.line == uf.frame.line:
        return
    s.created_by = found.owner
    s.applied_at, s.line = uf, Line(found.frame, found.code)


__all__ = ["CREATED", "EAGER", "GRAPH", "Line", "SideLines", "created_pair", "loss_weighting",
           "pair_of_rows", "place", "state_by_user", "step_offset", "where_frames"]
