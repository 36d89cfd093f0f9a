"""A NaN/∞ born inside the optimizer's update from finite inputs: the optimizer's settings
are what to change, so the line to fix is where the optimizer was made.

The op was created by the optimizer's own code (a frame in an `optimizers/` package: Keras'
`update_step`), called from `fit` or `apply_gradients` — the user's frame of the op is that
call, which holds nothing to change. Its inputs were finite (the walk stopped there), so the
gradients did not bring the NaN: the arithmetic the optimizer was configured for did. Only
the case the record shows for sure is claimed: Adam-like `m / (√v + ε)` whose ε holds 0 is
0/0 wherever a gradient was exactly 0 so far (a feature 0 in every row, a dead unit). An
overflow there (Adam's square of a huge gradient) is the gradient's story, not a setting's.

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
from reader.index.schema import EAGER, GRAPH

OPTIMIZER_DIRS = ("/optimizers/", "/optimizer_v2/", "/python/training/")
MAX_MADE = 2_000  # eager executions looked at for the optimizer's creation


@dataclass(frozen=True)
class OptimizerSetting:
    """Words to add to the explanation and where the optimizer was made."""

    text: str
    made: Place | None


def optimizer_setting(walker: Walker, origin: Ref, op_type: str,
                      links: list[Link]) -> OptimizerSetting | None:
    """For an origin the optimizer's code created (see the module docstring); else None."""
    if origin.kind != GRAPH:
        return None
    op = walker.op_of(origin)
    if op is None:
        return None
    frames = walker.L.op_stack(op)
    mine = [f for f in frames if _optimizer_file(f.file)]
    if not mine:
        return None
    if op_type not in ("RealDiv", "Div") or len(links) != 2:
        return None
    eps = _zero_epsilon(walker, origin, links[1])
    if eps is None:
        return None
    where = mine[-1].file.replace("\\", "/").rsplit("/", 1)[-1]
    text = (f"this division is the optimizer's own ({where}): its divisor is √v + ε with ε "
            f"({eps}) equal to 0, so where a gradient has been exactly 0 so far, m and v are "
            "0 and m / (√v + ε) is 0/0 — the inputs were finite, the gradients did not bring "
            "it: give the optimizer an epsilon above 0 (Keras' default is 1e-7)")
    return OptimizerSetting(text, _made_at(walker))


def _optimizer_file(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(d in p for d in OPTIMIZER_DIRS)


def _zero_epsilon(walker: Walker, origin: Ref, divisor: Link) -> str | None:
    """The name of the ε the divisor adds to a square root, when it holds only zeros."""
    op = walker.op_of(origin)
    g = walker.L.graph(op.graph_id) if op is not None else None
    if g is None or divisor.ref is None or divisor.ref.kind != GRAPH:
        return None
    add = walker.op_of(divisor.ref)
    if add is None or add.op_type not in ("AddV2", "Add") or len(add.inputs) != 2:
        return None
    kinds = [g.ops[n].op_type if n in g.ops else "" for n, _ in add.inputs]
    if "Sqrt" not in kinds:
        return None
    n, s = add.inputs[1 - kinds.index("Sqrt")]
    row = walker.idx.latest_trace(g.graph_id, n, s, origin.index)
    if row is None:
        return None
    h = walker.idx.health(Ref(GRAPH, row, s))
    return f"{n}:{s}" if h.size and h.zero == h.size else None


def _made_at(walker: Walker) -> Place | None:
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
