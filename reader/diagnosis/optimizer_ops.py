"""A NaN/∞ born inside the optimizer's update from finite inputs: the optimizer's settings
are what to change, so the line to fix is where the optimizer was made.

The op was created by the optimizer's own code (a frame in an `optimizers/` package: Keras'
`update_step`), called from `fit` or `apply_gradients` — the user's frame of the op is that
call, which holds nothing to change. Its inputs were finite (the walk stopped there), so the
gradients did not bring the NaN: the arithmetic the optimizer was configured for did. Only
what the record shows for sure is claimed: a division by a divisor built from the
optimizer's average of squared gradients v and its ε, in either form — Adam's `√v + ε`,
RMSprop's and Adagrad's `√(v + ε)` — where the divisor holds zeros and ε is 0 (recorded as
0, or, a Python number no op recorded, shown to add nothing: v + ε is 0 though v holds no
negative value). v, the average of the gradient's squares, is 0 where the gradient has been
exactly 0 so far (a feature 0 in every row, a dead unit), or everywhere when it takes none
of the gradient (a decay — RMSprop's rho, Adam's beta_2 — of 1: Adam's numerator is then 0
too, its bias correction √(1 − β₂ᵗ) being 0) or a square underflowed; the record cannot
tell these apart, so all are said, with what the division made: NaN (0/0) where the
numerator was 0, ±∞ where it was not.
An overflow there (Adam's square of a huge gradient) is the gradient's story, not a
setting's. Eager updates (`apply_gradients` outside any tf.function) are read alike.

Where the optimizer was made: Keras makes its variables (the iteration count, the learning
rate) in the optimizer's `__init__`, eagerly — the user's frame of the first such execution
is the line that made it (`Adam(epsilon=0.0)`). A run that recorded none (a TF1 optimizer
makes no variable when created) keeps the op's own line.
"""

from __future__ import annotations

from dataclasses import dataclass

from reader.diagnosis.index import Ref
from reader.diagnosis.places import Place, place_of_ref
from reader.diagnosis.walk import Link, Walker
from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.index.schema import EAGER, GRAPH

OPTIMIZER_DIRS = ("/optimizers/", "/optimizer_v2/", "/python/training/")
MAX_MADE = 2_000  # eager executions looked at for the optimizer's creation
_ADDS = ("AddV2", "Add")


@dataclass(frozen=True)
class OptimizerSetting:
    """Words to add to the explanation and where the optimizer was made."""

    text: str
    made: Place | None


@dataclass(frozen=True)
class _Epsilon:
    form: str  # how the divisor is built: "√v + ε" or "√(v + ε)"
    said: str  # what the record says of ε


def optimizer_setting(walker: Walker, origin: Ref, op_type: str,
                      links: list[Link]) -> OptimizerSetting | None:
    """For an origin the optimizer's code created (see the module docstring); else None."""
    if op_type not in ("RealDiv", "Div") or len(links) != 2:
        return None
    mine = [f for f in _frames(walker, origin) if _optimizer_file(f.file)]
    if not mine:
        return None
    eps = _zero_epsilon(walker, links[1])
    if eps is None:
        return None
    out = walker.idx.health(origin)
    infinite = out.pos_inf or out.neg_inf
    made = [w for w, n in (("NaN (0/0) where the numerator was 0 too", out.nan),
                           ("±∞ (x/0) where the numerator was not 0", infinite)) if n]
    if not made:
        return None
    where = mine[-1].file.replace("\\", "/").rsplit("/", 1)[-1]
    text = (f"this division is the optimizer's own ({where}): its divisor is {eps.form}, "
            f"with ε {eps.said} equal to 0, so it divides by 0 wherever v, the optimizer's "
            "sum or average of the gradient's squares, is 0 — where the gradient has been exactly "
            "0 so far (a feature 0 in every row, a dead unit), or everywhere if v takes none "
            "of it (a decay — RMSprop's rho, Adam's beta_2 — of 1, or a square that "
            f"underflowed); it made {' and '.join(made)}. The inputs were finite, the "
            "gradients did not bring it: give the optimizer an epsilon above 0 (Keras' "
            "default is 1e-7), and a decay below 1 if it is 1")
    return OptimizerSetting(text, made_at(walker))


def _frames(walker: Walker, ref: Ref) -> list[Frame]:
    L = walker.L
    if ref.kind == GRAPH:
        op = walker.op_of(ref)
        return list(L.op_stack(op)) if op is not None else []
    try:
        return list(L.stack(L.read_execution(ref.index).stack_frame_ids))
    except ReaderError:
        return []


def _optimizer_file(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(d in p for d in OPTIMIZER_DIRS)


def _type(walker: Walker, ref: Ref) -> str:
    L = walker.L
    return L.op_type_of_trace(ref.index) if ref.kind == GRAPH \
        else L.op_type_of_execution(ref.index)


def _zero_epsilon(walker: Walker, divisor: Link) -> _Epsilon | None:
    """What the divisor is made of, when it is √v + ε or √(v + ε) with an ε of 0."""
    d = divisor.ref
    if d is None or d.kind not in (GRAPH, EAGER):
        return None
    h = walker.idx.health(d)
    if not h.zero:
        return None
    kind = _type(walker, d)
    ins = walker.inputs(d)
    if kind in _ADDS and len(ins) == 2:  # √v + ε
        kinds = [_type(walker, x.ref) if x.ref is not None else "" for x in ins]
        if "Sqrt" not in kinds:
            return None
        said = _zero(walker, ins[1 - kinds.index("Sqrt")], ins[kinds.index("Sqrt")])
        return _Epsilon("√v + ε", said) if said is not None else None
    if kind == "Sqrt" and ins and ins[0].ref is not None:  # √(v + ε)
        add = ins[0].ref
        terms = walker.inputs(add)
        if _type(walker, add) not in _ADDS or len(terms) != 2 or not walker.idx.health(add).zero:
            return None
        said = _zero(walker, terms[1], terms[0])
        return _Epsilon("√(v + ε)", said) if said is not None else None
    return None


def _zero(walker: Walker, eps: Link, v: Link) -> str | None:
    """How the record shows ε is 0: its own record holding only zeros, or — ε not recorded
    (a Python number) — v + ε holding zeros (checked by the caller) while v holds no
    negative value and some zeros, so ε adds nothing there."""
    if eps.ref is not None:
        h = walker.idx.health(eps.ref)
        return f"({eps.name})" if h.size and h.zero == h.size else None
    if v.ref is None:
        return None
    hv = walker.idx.health(v.ref)
    if hv.negative == 0 and not hv.neg_inf and hv.zero:
        return "(a Python number no op recorded: v + ε is 0 where v is)"
    return None


def made_at(walker: Walker) -> Place | None:
    """Where the optimizer was made: the first eager execution run by an optimizer's
    `__init__` (its variables), at the user's frame."""
    L = walker.L
    for i in range(min(len(L.executions), MAX_MADE)):
        try:
            frames = L.stack(L.read_execution(i).stack_frame_ids)
        except ReaderError:
            return None
        if any(_optimizer_file(f.file) and f.function == "__init__" for f in frames):
            place = place_of_ref(walker.idx, Ref(EAGER, i))
            return place if place.user_frame is not None else None
    return None
