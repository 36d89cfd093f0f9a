"""Which forward op a gradient op differentiates — so the user is sent to the forward line.

A NaN/∞ born in the backward pass is fixed in the forward code (guard the `sqrt`, clip the
`log`), as PyTorch's anomaly mode reports it; the `tape.gradient(...)` line that built the
gradient op is never the place to change. TensorFlow leaves three kinds of traces of the link:
- `tf.gradients`, TF1 optimizers and the backward functions of eagerly called tf.functions
  name gradient ops `gradients[_N]/<forward op name>_grad/<op>`: the forward name is exact.
- `tf.GradientTape` inside a tf.function names them `gradient_tape/<forward name scope>/<op>`,
  where the scope is the one the forward op was created in: `mul` for the op `mul` (made by
  `x * y`), empty for a bare `tf.sqrt`. Several forward ops can share a scope, so candidates
  are ranked by graph edges — a gradient op reads its forward op's inputs or outputs (SqrtGrad
  reads Sqrt's output, Log's gradient takes the reciprocal of Log's input) — and by type.
- A gradient graph of its own (`__backward_f_N`, `cond_true_N_grad_M`) differentiates another
  graph: `reader.diagnosis.functions.forward_of_backward`, or the branch named before `_grad_`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from reader.diagnosis.functions import forward_of_backward
from reader.diagnosis.index import DiagIndex, Ref
from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.index.graphs import Graph, Op, parse_tensor_name
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER, GRAPH

_GRADIENTS = re.compile(r"(?:^|/)gradients(?:_\d+)?/")
_TAPE = "gradient_tape/"
_GRAD_GRAPH = re.compile(r"^(.*)_grad_\d+$")
_PASS = frozenset({"Identity", "OptionalGetValue", "OptionalFromValue", "Placeholder"})
# a registered gradient function: `_SqrtGrad`, `_RealDivGrad`, `_SelectGradV2`
_GRAD_FN = re.compile(r"^_([A-Z]\w*?)Grad(V\d+)?$")
_WHERE = frozenset({"SelectV2", "Select"})

# gradient op type → forward op types whose gradient creates it (used to rank candidates)
GRAD_TYPES: dict[str, frozenset[str]] = {
    "SqrtGrad": frozenset({"Sqrt"}),
    "RsqrtGrad": frozenset({"Rsqrt"}),
    "ReciprocalGrad": frozenset({"Reciprocal", "Inv"}),
    "TanhGrad": frozenset({"Tanh"}),
    "SigmoidGrad": frozenset({"Sigmoid"}),
    "Reciprocal": frozenset({"Log", "Log1p", "Acos", "Asin", "Atanh", "Tan"}),
    "Sqrt": frozenset({"Acos", "Asin"}),
    "Pow": frozenset({"Pow"}),
    "Log": frozenset({"Pow"}),
    "RealDiv": frozenset({"RealDiv", "Div", "Asinh", "Acosh", "Atan2"}),
    "Xdivy": frozenset({"Xdivy", "Xlogy"}),
    "DivNoNan": frozenset({"DivNoNan"}),
    "SelectV2": frozenset({"SelectV2", "Select", "Maximum", "Minimum"}),
    "Select": frozenset({"Select", "SelectV2"}),
}


@dataclass(frozen=True)
class Forward:
    """The forward op a gradient op belongs to, and how that was found."""

    op: Op
    graph: Graph
    how: str  # "name" (exact, from `<op>_grad/`) or "scope" (tape scope + edges/type)


def is_gradient_name(op_name: str) -> bool:
    """True for ops TensorFlow created while building a gradient."""
    # substring tests before the regex: on a crafted 100 MB name they take ~0.5 s, it ~3 s
    return (op_name.startswith(_TAPE) or "_grad/" in op_name
            or ("gradients" in op_name and bool(_GRADIENTS.search(op_name))))


def _forward_name(op_name: str) -> str | None:
    """`gradients/dense/MatMul_grad/MatMul` → `dense/MatMul` (None without `_grad/`)."""
    starts = [m.end() for m in _GRADIENTS.finditer(op_name)]
    rest = op_name[starts[-1]:] if starts else op_name
    cut = rest.find("_grad/")
    return rest[:cut] if cut > 0 else None


def _tape_scope(op_name: str) -> str | None:
    """`gradient_tape/dense/mul/Mul` → `dense/mul`; `gradient_tape/SqrtGrad` → ``."""
    if not op_name.startswith(_TAPE):
        return None
    rest = op_name[len(_TAPE):]
    return rest.rsplit("/", 1)[0] if "/" in rest else ""


def forward_graphs(L: DebugLogdir, g: Graph) -> list[Graph]:
    """Graphs where the forward ops of `g`'s gradient ops may live, nearest first."""
    out = [g]
    fwd = forward_of_backward(list(L.graphs.graphs.values()), g)
    if fwd is not None:
        out.append(fwd)
    m = _GRAD_GRAPH.match(g.name)
    if m and g.outer_id:
        outer = L.graph(g.outer_id)
        for gid in outer.inner_ids if outer else []:
            branch = L.graph(gid)
            if branch is not None and branch.name == m.group(1):
                out.append(branch)
    gid = g.outer_id
    while gid:
        outer = L.graph(gid)
        if outer is None or outer in out:
            break
        out.append(outer)
        gid = outer.outer_id
    return out


def gradient_hint(frames: list[Frame]) -> str | None:
    """The forward op type whose gradient function created an op, from its stack.

    TensorFlow registers one gradient function per op type, named `_<Type>Grad`
    (`math_grad.py: _SqrtGrad`); the innermost such frame created this op.
    """
    for f in reversed(frames):
        if f.is_framework and f.file.endswith("_grad.py"):
            m = _GRAD_FN.match(f.function)
            if m:
                return m.group(1) + (m.group(2) or "")
    return None


def custom_gradient_function(frames: list[Frame]) -> Frame | None:
    """The user's own gradient function (tf.custom_gradient) that created an op, if any.

    Its frames: TensorFlow's backprop (`imperative_grad`, `gradients_util`), then
    `custom_gradient.py` calling the user's `grad`, and no registered `_<Type>Grad` after.
    """
    seen_backprop = False
    user: Frame | None = None
    in_custom = False
    for f in frames:
        name = f.file.replace("\\", "/")
        if name.endswith(("eager/imperative_grad.py", "ops/gradients_util.py")):
            seen_backprop = True
        elif name.endswith("ops/custom_gradient.py") and seen_backprop:
            in_custom, user = True, None
        elif f.is_framework and name.endswith("_grad.py") and _GRAD_FN.match(f.function):
            in_custom = False
        elif in_custom and f.resolved and not f.is_framework:
            user = f
    return user if in_custom else None


def forward_of(L: DebugLogdir, g: Graph, grad: Op, hint: str | None = None) -> Forward | None:
    """The forward op whose gradient `grad` (an op of graph `g`) computes, or None.

    `hint` is the forward op type named by the gradient function on the op's stack.
    """
    if not is_gradient_name(grad.op_name):
        return None
    graphs = forward_graphs(L, g)
    name = _forward_name(grad.op_name)
    if name is not None:
        for fg in graphs:
            op = fg.ops.get(name)
            if op is not None and not is_gradient_name(op.op_name):
                return Forward(op, fg, "name")
    scope = _tape_scope(grad.op_name)
    if scope is None:
        return None
    return _by_scope(g, grad, scope, hint)


def _by_scope(g: Graph, grad: Op, scope: str, hint: str | None) -> Forward | None:
    exact = g.ops.get(scope) if scope else None
    if exact is not None and not is_gradient_name(exact.op_name):
        return Forward(exact, g, "scope")
    cands = [op for op in g.ops.values() if not is_gradient_name(op.op_name)
             and op.op_type not in _PASS and op.op_type != "Const"
             and (op.op_name.rsplit("/", 1)[0] if "/" in op.op_name else "") == scope]
    if not cands:
        return None
    near = _neighbours(g, grad)
    types = GRAD_TYPES.get(grad.op_type, frozenset())

    def score(op: Op) -> int:
        s = 0
        if op.op_name in near:  # the gradient reads its output (SqrtGrad reads Sqrt)
            s += 4
        if any(n in near for n, _ in op.inputs):  # or its input (Log's grad reads x)
            s += 2
        if op.op_type in types or op.op_type == hint:
            s += 3
        return s

    ranked = sorted(cands, key=score, reverse=True)
    best = score(ranked[0])
    if best < 3 or (len(ranked) > 1 and score(ranked[1]) == best):
        return None  # no evidence, or a tie: better no answer than a wrong one
    return Forward(ranked[0], g, "scope")


def _neighbours(g: Graph, grad: Op, depth: int = 3) -> set[str]:
    """Names of the forward ops the gradient op reads, through pass-through ops."""
    out: set[str] = set()
    frontier = [n for n, _ in grad.inputs]
    for _ in range(depth):
        nxt: list[str] = []
        for name in frontier:
            op = g.ops.get(name)
            if op is None:
                continue
            if op.op_type in _PASS or is_gradient_name(op.op_name):
                if op.op_type in _PASS:
                    nxt.extend(n for n, _ in op.inputs)
                    if op.op_type == "Placeholder":  # a capture named after its source
                        parsed = parse_tensor_name(op.op_name.rsplit("/", 1)[-1])
                        if parsed:
                            out.add(parsed[0])
                continue
            out.add(op.op_name)
        frontier = nxt
    return out


def eager_forward(idx: DiagIndex, e: int, hint: str, window: int = 256) -> Ref | None:
    """The eager forward op of type `hint` that gradient execution `e` differentiates.

    Eager ops have no names; the gradient reads the forward op's output (SqrtGrad reads y)
    or its input (Log's gradient reads x): the forward op is the producer of one of `e`'s
    inputs, or failing that the latest `hint` execution before `e` that read one of them —
    never an op of the gradient itself (Mean's gradient is a RealDiv too: taken for the
    forward x/y, 1/0's gradient was paired with it, not with the division it differentiates).
    """
    L = idx.L
    try:
        tids = set(L.read_execution(e).input_tensor_ids)
    except ReaderError as exc:
        L.warn(str(exc))
        return None
    for tid in sorted(tids):
        ref = idx.eager_producer(int(tid), e)
        if (ref is not None and L.op_type_of_execution(ref.index) == hint
                and not _in_gradient(L, ref.index)):
            return ref
    sid = L.strings.lookup(hint)
    if sid < 0:
        return None
    same = (L.executions.col("op_type")[:e] == sid).nonzero()[0][::-1][:window]
    for r in same:
        try:
            rec = L.read_execution(int(r))
            if (tids & set(rec.input_tensor_ids)
                    and gradient_hint(L.stack(rec.stack_frame_ids)) is None):
                return Ref(EAGER, int(r), 0)
        except ReaderError as exc:
            L.warn(str(exc))
            return None
    return None


def _in_gradient(L: DebugLogdir, e: int) -> bool:
    """Was execution `e` made by a registered gradient function (its stack says so)?"""
    try:
        return gradient_hint(L.stack(L.read_execution(e).stack_frame_ids)) is not None
    except ReaderError as exc:
        L.warn(str(exc))
        return False


def _forward_consumers(g: Graph, op: Op, depth: int, *, forward_only: bool,
                       width: int = 256) -> Iterator[Op]:
    """The ops `op`'s output reaches within `depth` steps along its consumers (gradient ops
    left out when `forward_only`), nearest first; at most `width` followed per step."""
    frontier, seen = [op.op_name], {op.op_name}
    for _ in range(depth):
        nxt = []
        for name in frontier:
            o = g.ops.get(name)
            for consumer, _i, _s in o.consumers if o else []:
                c = g.ops.get(consumer)
                if c is None or consumer in seen or (forward_only
                                                      and is_gradient_name(consumer)):
                    continue
                seen.add(consumer)
                yield c
                nxt.append(consumer)
        frontier = nxt[:width]


def where_consumer(L: DebugLogdir, g: Graph, fwd: Op, depth: int = 3) -> Op | None:
    """The tf.where (SelectV2) that `fwd`'s output reaches within `depth` forward ops."""
    return next((c for c in _forward_consumers(g, fwd, depth, forward_only=True)
                 if c.op_type in _WHERE), None)


def _line_of(L: DebugLogdir, op: Op) -> str:
    uf = L.user_frame(L.op_stack(op))
    return f" at line {uf.line}" if uf else ""


def where_guard(L: DebugLogdir, g: Graph, fwd: Op, depth: int = 3) -> str | None:
    """When the forward op's output is filtered by tf.where, say why that does not help.

    `tf.where(c, f(x), 0)` hides f's NaN/∞ in the forward pass, but the gradient of the
    unselected branch is 0 × f'(x), and 0 × ∞ = NaN.
    """
    c = where_consumer(L, g, fwd, depth)
    if c is None:
        return None
    return (f"tf.where ({c.op_type}{_line_of(L, c)}) hides it in the forward pass, but "
            "its gradient still flows through the unselected branch: the "
            "derivative there is 0 × ∞ = NaN (compute the branch on a safe "
            "input instead, e.g. tf.sqrt(tf.where(c, x, 1.0)))")


def where_hides(idx: DiagIndex, g: Graph, op: Op, row: int) -> str | None:
    """A forward op's NaN/∞ (trace `row`) that a tf.where drops: the where's own trace of the
    same call is recorded finite. The user believes the guard works; it does not for the
    gradient, which still goes through the dropped branch."""
    c = where_consumer(idx.L, g, op)
    if c is None:
        return None
    mine = idx.trace_rows(g.graph_id, op.op_name, 0)
    later = mine[mine > row]
    bound = int(later[0]) if len(later) else None
    rows = idx.trace_rows(g.graph_id, c.op_name, 0)
    rows = rows[rows > row]
    if not len(rows) or (bound is not None and int(rows[0]) > bound):
        return None
    if idx.is_bad(Ref(GRAPH, int(rows[0]), 0)) != 0:
        return None
    backward = any(is_gradient_name(name) for name in g.ops)
    grad = ("in this function's backward pass the dropped branch gets 0 × ∞ (or 0 × NaN) = "
            "NaN, so the gradient is NaN all the same" if backward else
            "a gradient taken through it gets 0 × ∞ (or 0 × NaN) = NaN in the dropped branch")
    return (f"tf.where ({c.op_type}{_line_of(idx.L, c)}) drops these values from its "
            f"result, which is finite, but it computes both branches: {grad}. Make the input "
            f"of this op safe instead (e.g. {_SAFE.get(op.op_type, _ANY)})")


_ANY = "f(tf.where(c, x, a_safe_value))"
_SAFE = {"Log": "tf.math.log(tf.where(c, x, 1.0))", "Sqrt": "tf.sqrt(tf.where(c, x, 1.0))",
         "Rsqrt": "tf.math.rsqrt(tf.where(c, x, 1.0))", "RealDiv": "x / tf.where(c, y, 1.0)",
         "Div": "x / tf.where(c, y, 1.0)", "Reciprocal": "1 / tf.where(c, x, 1.0)",
         "Pow": "tf.pow(tf.where(c, x, 1.0), p)", "Acos": "tf.acos(tf.where(c, x, 0.0))",
         "Asin": "tf.asin(tf.where(c, x, 0.0))", "Exp": "tf.exp(tf.where(c, x, 0.0))"}


def finite_checked(L: DebugLogdir, g: Graph, op: Op, depth: int = 6) -> Op | None:
    """The IsFinite op that checks `op`'s output within `depth` consumers, if any.

    Mixed precision's LossScaleOptimizer multiplies the loss by a large scale, so float16
    gradients overflow on purpose in the first steps; it checks every gradient with IsFinite
    and skips the step. A gradient the program checks itself is such a case, most likely.
    """
    return next((c for c in _forward_consumers(g, op, depth, forward_only=False)
                 if c.op_type == "IsFinite"), None)


LOSS_SCALING = ("the program checks this gradient for NaN/∞ itself (IsFinite), as mixed "
                "precision's LossScaleOptimizer does: it multiplies the loss by a large scale "
                "(2¹⁵ at first), skips every step whose scaled gradients overflow and lowers the "
                "scale — expected in the first steps and harmless; a problem only if it never "
                "stops (then the loss does not move), or if a later alert is not of this kind")
