"""Stage 3, a helper: embedding tables, read as the rows the step gathers and updated as the
rows of the ids it looked up.

An embedding's read is the rows its gather takes (`reads.rows_read`), its gradient the
IndexedSlices' values (a row per id looked up) and its update a scatter into those rows.
Two runs of one model gather different rows of the same table when they look the ids up
differently: TF1's `embedding_lookup_sparse` gathers each distinct id once (`Unique`) and
averages per sentence; Keras' `Embedding` gathers every position, padding included, and a
masked pooling averages. Their tensors have other shapes, so pairing the variables by the
signature of what they read left both tables without a partner, and nothing of them was
compared. The table is the same variable in both runs: the variables are paired as tables
(both read only through a gather, of one dtype class), and their tensors are compared by id
(`..keyed`): a read's rows of the ids both runs looked up, a gradient's rows summed per id
(an id one run never looked up has a zero gradient there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.dataflow import Flow
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.quantities import Q_GRADIENT, Q_UPDATE, Q_VARIABLE
from tfdbg_tui.core.compare.contract.reads import GATHER
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.tensors import Tensor, sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs

GATHERS = GATHER | {"ResourceGather"}
# sparse updates whose input 1 is the ids of the rows they write (one id per row)
SCATTERS = frozenset({"ResourceScatterAdd", "ResourceScatterSub", "ResourceScatterUpdate",
                      "ResourceScatterMul", "ResourceScatterDiv", "ScatterAdd", "ScatterSub",
                      "ScatterUpdate"})

Row = tuple[int, int]  # (kind, row) of a recorded tensor


@dataclass(frozen=True)
class ById:
    """How to compare a pair of a table's tensors: each side's ids (one per row of its
    values) and whether rows of one id add up (a gradient's IndexedSlices) or are copies
    of one row (a read)."""

    ids_a: Row
    ids_b: Row
    summed: bool


def read_ids(flow: Flow, roles: Roles, h: str) -> Tensor | None:
    """The ids a table's read gathers (None: the variable is not read through a gather)."""
    t = roles.read.get(h)
    if t is None or flow.op_type[t[0]] not in GATHERS or len(flow.inputs[t[0]]) < 2:
        return None
    ids = flow.inputs[t[0]][1]
    return ids if ids[0] >= 0 else None


def update_ids(flow: Flow, roles: Roles, h: str) -> Tensor | None:
    """The ids of the rows a table's sparse update writes (None: not a scatter)."""
    u = roles.update.get(h)
    if u is None or flow.op_type[u] not in SCATTERS or len(flow.inputs[u]) < 3:
        return None
    ids = flow.inputs[u][1]
    return ids if ids[0] >= 0 else None


def pair_tables(vp: list[tuple[str, str]], fa: Flow, ra: Roles, fb: Flow, rb: Roles
                ) -> list[tuple[str, str]]:
    """Pairs of the variables the signature pairing left whose reads are gathers in both
    runs: tables of one dtype class and rank of rows, in forward order."""
    pa = {a for a, _ in vp}
    pb = {b for _, b in vp}
    left = [h for h in ra.variables if h not in pa and read_ids(fa, ra, h) is not None]
    right = [h for h in rb.variables if h not in pb and read_ids(fb, rb, h) is not None]
    out = []
    for ha in left:
        for hb in right:
            if sig_class(ra.sig[ha])[:2] == sig_class(rb.sig[hb])[:2]:
                out.append((ha, hb))
                right.remove(hb)
                break
    return out


def key_tables(out: StepPairs, ma: RunModel, mb: RunModel) -> None:
    """Mark the pairs of each table pair's tensors that the two runs gathered or scattered
    differently (other shapes) to be compared by id (`out.by_id`): the value each step
    reads, and the gradient where both updates are scatters (their ids)."""
    for k, vp in enumerate(out.var_pairs[:out.n_steps]):
        fa, _, ra = ma.steps[k]
        fb, _, rb = mb.steps[k]
        sa, sb = ma.cache.get(("sig", id(fa))), mb.cache.get(("sig", id(fb)))
        for ha, hb in vp:
            ids_a, ids_b = read_ids(fa, ra, ha), read_ids(fb, rb, hb)
            if ids_a is None or ids_b is None or sa is None or sb is None:
                continue
            # the read at step k: the initial value (k = 0) or step k − 1's update
            q, at = (Q_VARIABLE, 0) if k == 0 else (Q_UPDATE, k - 1)
            for ta, tb, ia, ib, quantity, step, summed in (
                    (ra.read.get(ha), rb.read.get(hb), ids_a, ids_b, q, at, False),
                    (ra.grad.get(ha), rb.grad.get(hb), update_ids(fa, ra, ha),
                     update_ids(fb, rb, hb), Q_GRADIENT, k, True)):
                # tensors of one shape compare element by element, as any other
                if (ta is None or tb is None or ia is None or ib is None
                        or tuple(sa[ta][1:]) == tuple(sb[tb][1:])):
                    continue
                _key(out, ma.row(k, ta), mb.row(k, tb), step, quantity, ma.row(k, ia),
                     mb.row(k, ib), summed)


def _key(out: StepPairs, a: Row | None, b: Row | None, step: int, q: int,
         ids_a: Row | None, ids_b: Row | None, summed: bool) -> None:
    if a is None or b is None or ids_a is None or ids_b is None:
        return
    pid = out.find(a, b)
    if pid is not None and out.step[pid] == step and out.quantity[pid] == q:
        out.by_id[pid] = ById(ids_a, ids_b, summed)
