"""Training that diverges: no op is wrong, the step size is.

The most common NaN of all: weights grow a little more every step (a learning rate too large
for the data's scale) until some product or square overflows, and ∞ then turns into NaN. The
op that overflows is innocent — the same op was finite in every earlier call of the same
function, and what changed in between is the weights the optimizer wrote.

The health modes record no magnitudes, so growth itself is not visible; what is visible is
the shape of the story, and the explanation says it as such:
- the origin is an overflow (finite inputs, ±∞ out) of an op whose arithmetic cannot
  explain it otherwise (not a log, a division, an exp of huge inputs…);
- the same tensor was traced finite in earlier calls of its function;
- upstream of it, inside that graph, a variable is read that the same graph updates with a
  gradient (an optimizer step).
The line to change is where the learning rate is set: the optimizer multiplies the gradient by
a variable (the learning rate) whose last eager write is the optimizer's creation line.
One bad batch (inputs far larger than the earlier ones') tells the same story in a health
mode, where no magnitude is recorded: when data reaches the op, the explanation says so.
FULL_TENSOR records the weights' values: when they did not grow, the story is the batch's
(cause "forward", fixed at the op's line; `reader.diagnosis.growth`).
"""

from __future__ import annotations

from dataclasses import dataclass

from reader.diagnosis.explain.common import DTYPE_MAX, produced
from reader.diagnosis.growth import Growth, growth
from reader.diagnosis.index import Health, Ref
from reader.diagnosis.places import Place, place_of_op, place_of_ref
from reader.diagnosis.rate_code import scheduled_by_user, written_rate
from reader.diagnosis.schedules import from_schedule, schedule_place
from reader.diagnosis.variables import APPLY_PREFIX, WRITE_OPS, is_write
from reader.diagnosis.walk import Walker
from reader.index.graphs import Graph, Op
from reader.index.schema import EAGER, GRAPH
from reader.io.tensors import dtype_name
from reader.modes import FULL_TENSOR

# ops whose overflow from finite inputs is only a matter of magnitude
GROWING = frozenset({"Square", "Mul", "MatMul", "BatchMatMulV2", "AddV2", "Add", "Sub", "Sum",
                     "Mean", "AddN", "BiasAdd", "SquaredDifference", "Conv2D", "Einsum",
                     "Prod"})
MIN_EARLIER = 2  # finite calls before: a first-call overflow is a scale problem, not divergence
MAX_DEPTH = 12


@dataclass(frozen=True)
class Divergence:
    text: str
    fix: Place | None  # None: the origin's own line
    weights: Place  # the update of the trained variable the overflow depends on
    cause: str = "divergence"  # "forward": FULL_TENSOR shows the weights did not grow


def divergence(walker: Walker, origin: Ref, op_type: str, out: Health,
               inputs_finite: bool) -> Divergence | None:
    """The divergence story for an overflow, when the records support it (see above)."""
    if origin.kind != GRAPH or op_type not in GROWING or not inputs_finite:
        return None
    if out.nan is None or not (out.pos_inf or out.neg_inf):
        return None
    L, idx = walker.L, walker.idx
    op = L.op_of_trace(origin.index)
    g = L.graph(op.graph_id) if op is not None else None
    if op is None or g is None:
        return None
    rows = idx.trace_rows(g.graph_id, op.op_name, origin.slot)
    earlier = rows[rows < origin.index]
    finite = int((L.traces.col("bad")[earlier] == 0).sum()) if len(earlier) else 0
    if finite < MIN_EARLIER:
        return None
    update = _trained_update(g, op)
    if update is None:
        return None
    weights = place_of_op(idx, g, update)
    data = _data_inputs(g, op)
    reads = []
    for r in _reads(g, op):  # FULL_TENSOR: the weights' values, now and at the first call
        first, now = idx.trace_rows(g.graph_id, r, 0), idx.latest_trace(g.graph_id, r, 0,
                                                                         origin.index)
        if len(first) and now is not None:
            reads.append((r, Ref(GRAPH, int(first[0]), 0), Ref(GRAPH, now, 0)))
    seen = growth(idx, reads)
    if seen is not None and not seen.grew:
        return Divergence(batch_story(op_type, out, seen, ", ".join(data)), None, weights,
                          "forward")
    lr, lr_said = _learning_rate(walker, g, update, origin.index)
    read = update.inputs[0][0] if update.inputs else "a variable"
    text = story(op_type, out,
                 f"it was finite in the {finite:,} earlier calls of {g.name or 'its graph'}",
                 "it depends on a variable that the same function updates with its gradient "
                 f"every step ({update.op_type} of {read})",
                 ", ".join(data) if out.mode != FULL_TENSOR else "", lr,
                 seen.said() if seen is not None else "", lr_said)
    return Divergence(text, lr if lr is not None else weights, weights)


def _overflowed(op_type: str, out: Health) -> str:
    limit = DTYPE_MAX.get(out.dtype or 0)
    dt = dtype_name(out.dtype) if out.dtype is not None else "its dtype"
    return (f"{produced(op_type, out)}: its inputs were finite, so it overflowed {dt}"
            + (f" (largest finite ≈{limit:.3g})" if limit else ""))


def batch_story(op_type: str, out: Health, seen: Growth, data: str) -> str:
    """The explanation when FULL_TENSOR shows the weights did not grow: one bad batch."""
    return (f"{_overflowed(op_type, out)} — not because the training diverged: the weights it "
            f"depends on are as large as at the first step ({seen.said()}), so this step's "
            f"data{f' ({data})' if data else ''} was far larger than the earlier steps' (one "
            "bad batch). Find that batch and clean, clip or drop it (np.abs(x).max() before "
            "feeding it shows it), or normalise the inputs")


def story(op_type: str, out: Health, earlier: str, update: str, data: str,
          lr: Place | None, grew: str = "", lr_said: str | None = None) -> str:
    """The divergence explanation, one for every form the training took (`earlier`: why the
    op was fine before; `update`: the variable it depends on; `data`: the inputs a bad batch
    would come in by, named — empty in FULL_TENSOR, which records the magnitudes; `grew`:
    how much the weights grew, when FULL_TENSOR shows it; `lr_said`: where the rate comes
    from, when not from a variable's write: a schedule's)."""
    where = ""
    if lr_said:
        where = f" ({lr_said})"
    elif lr is not None and lr.user_frame is not None:
        where = (f" (set at {lr.user_frame.file.rsplit('/', 1)[-1]}:{lr.user_frame.line}, "
                 "where the learning rate is written)")
    tail = (" The training diverged: each step made the weights larger until they "
            "overflowed" + (f" ({grew})" if grew else "") + (
                f" — unless this step's {data} held values far larger than the "
                "earlier steps' (one bad batch): health modes record no magnitudes, so this "
                "record cannot tell the two apart (FULL_TENSOR can)." if data else "."))
    return (_overflowed(op_type, out)
            + f" — yet {earlier}, and {update}.{tail} Lower the learning rate{where}, "
            "or normalise the inputs"
            # a FULL_TENSOR run has the magnitudes: saying it lacks them misled
            + ("" if out.mode == FULL_TENSOR or data else
               " (health modes record no magnitudes; FULL_TENSOR shows the growth)"))


def _reads(g: Graph, op: Op) -> list[str]:
    """The variable reads (ReadVariableOp names) of `g` that `op` depends on."""
    found: list[str] = []
    frontier, seen = [op.op_name], {op.op_name}
    for _ in range(MAX_DEPTH):
        nxt = []
        for name in frontier:
            cur = g.ops.get(name)
            if cur is None:
                continue
            if cur.op_type == "ReadVariableOp" and cur.inputs:
                found.append(name)
                continue
            for n, _s in cur.inputs:
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return found


def _trained_update(g: Graph, op: Op) -> Op | None:
    """A write op of `g` that updates a variable `op` reads (upstream, through its inputs)."""
    handles = {g.ops[r].inputs[0][0] for r in _reads(g, op)}
    # the last created: a TF1 variable's first write is its initializer (a plain Assign),
    # the optimizer's update (ResourceApply*) comes after it
    found = None
    for w in g.ops.values():
        if is_write(w.op_type) and w.inputs and w.inputs[0][0] in handles:
            found = w
    return found


def _data_inputs(g: Graph, op: Op, most: int = 3) -> list[str]:
    """The data `op` depends on inside `g` (upstream, not through a variable read): the
    function's arguments (Placeholders) and the batches an iterator hands out."""
    found: list[str] = []
    frontier, seen = [op.op_name], {op.op_name}
    for _ in range(MAX_DEPTH):
        nxt = []
        for name in frontier:
            cur = g.ops.get(name)
            if cur is None or cur.op_type == "ReadVariableOp":
                continue
            if cur.op_type in ("Placeholder", "IteratorGetNext"):
                found.append(cur.op_name)
                continue
            for n, _s in cur.inputs:
                if n not in seen:
                    seen.add(n)
                    nxt.append(n)
        frontier = nxt
    return sorted(found)[:most]


def _learning_rate(walker: Walker, g: Graph, update: Op,
                   before: int) -> tuple[Place | None, str | None]:
    """Where the learning rate the update multiplies the gradient by was last written; for
    a rate a Keras schedule computes (no variable read), where the schedule was made and
    what to say of it (`reader.diagnosis.schedules`)."""
    if update.op_type.startswith(APPLY_PREFIX):  # TF1's fused updates take it as an input
        rate = next((g.ops[n] for n, _s in update.inputs
                     if n.rsplit("/", 1)[-1] == "learning_rate" and n in g.ops), None)
        return (place_of_op(walker.idx, g, rate) if rate is not None else None), None
    if update.op_type not in WRITE_OPS or len(update.inputs) < 2:
        return None, None
    value = g.ops.get(update.inputs[1][0])
    if value is None or value.op_type not in ("Mul", "RealDiv"):
        return None, None
    scheduled = False
    for n, _s in value.inputs:
        src = g.ops.get(n)
        while src is not None and src.op_type in ("Cast", "Identity") and src.inputs:
            src = g.ops.get(src.inputs[0][0])
        if src is None:
            continue
        if src.op_type != "ReadVariableOp":
            scheduled = scheduled or from_schedule(walker.L.op_stack(src))
            mine = scheduled_by_user(walker, place_of_op(walker.idx, g, src))
            if mine is not None:  # a schedule class's __call__: the user's own formula
                return mine.place, mine.said
            continue
        row = walker.idx.latest_trace(g.graph_id, src.op_name, 0, before)
        if row is None:
            continue
        w = walker.variable_write(Ref(GRAPH, row, 0))
        place = None
        if w is not None and w.kind == EAGER and w.index is not None:
            place = place_of_ref(walker.idx, Ref(EAGER, w.index))
        elif w is not None and w.graph is not None and w.op is not None:
            place = place_of_op(walker.idx, w.graph, w.op)
        if place is not None:
            code = written_rate(walker, place)  # a callback's or a helper's formula
            return (code.place, code.said) if code is not None else (place, None)
    sched = schedule_place(walker) if scheduled else None
    return (sched.place, sched.said) if sched is not None else (None, None)
