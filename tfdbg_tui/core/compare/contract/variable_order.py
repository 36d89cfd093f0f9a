"""Stage 3, variables alike: telling apart variables of one shape that the forward order
cannot order — two cells of a bidirectional RNN, a cell's input and recurrent kernels.

Variables pair by forward order × dtype class and shape (`pairing`). Where a run computes
two branches side by side (Keras' `Bidirectional` runs its forward and backward copies
independently; a functional `While` takes a cell's three weights at once) that order is
arbitrary, and pairing by it can give A's backward cell the forward cell's partner. What each
variable's value *feeds* tells them apart, in this order of weight:

1. **dependency order** — whether the data a variable's reads meet depends on another
   variable (a recurrent kernel multiplies the state the input kernel made; a second layer
   reads the first's output). Two variables so ordered in A never pair the other way round
   in B;
2. **direction** — whether the data its reads meet went through a reversal (`ReverseV2`) an
   odd number of times: the backward cell of a hand-written bidirectional RNN and Keras'
   `go_backwards` copy both see the sentence reversed;
3. **value at step 0** — when both runs start from the same weights, two variables holding
   the same values (and no other candidate holding them);
4. the forward order, as before.

Only what the data feeds counts: reads that reach the loss (`live`), and never through a
shape (`SHAPE_ONLY`) — Keras computes a cell once outside its loop just to learn its output
shape, on the sentence *not* reversed. A group still tied after 1–3 is paired in forward
order and said to be ambiguous, never guessed silently.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import permutations

from reader import GRAPH
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, UPDATES, Flow
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.tensors import SHAPE_ONLY, sig_class

REVERSES = frozenset({"ReverseV2", "Reverse", "ReverseSequence"})

_HANDLES = frozenset({"VarHandleOp", "VariableV2", "Variable"})

MAX_GROUP = 7  # variables of one signature re-paired by trying every assignment (7! = 5040)

SameValue = Callable[[str, str], bool]  # (A's handle, B's handle) → equal at step 0


class Features:
    """Per trained variable of one step: the variables upstream of the data its live reads
    meet, and whether that data went through a reversal."""

    def __init__(self, flow: Flow, roles: Roles) -> None:
        n = len(flow)
        trained = set(roles.variables)
        consumers: list[list[int]] = [[] for _ in range(n)]
        for k, ins in enumerate(flow.inputs):
            for j, _ in ins:
                if j >= 0:
                    consumers[j].append(k)
        handle_nodes = {k for k in range(n) if flow.op_type[k] in _HANDLES}
        for k in range(n):  # a function's resource placeholder: what a read or update takes
            if flow.op_type[k] in READS or flow.op_type[k] in UPDATES:
                for j, _ in flow.inputs[k][:1]:
                    if j >= 0 and flow.op_type[j] == "Placeholder":
                        handle_nodes.add(j)
        live = _live(flow, roles, n)
        deps: list[frozenset[str]] = [frozenset()] * n
        rev: list[frozenset[int]] = [frozenset()] * n
        external = frozenset({0}) if flow.kind != GRAPH else frozenset()
        for k in range(n):
            t = flow.op_type[k]
            if flow.phase[k] not in FORWARD or t in SHAPE_ONLY or k in handle_nodes:
                continue
            if t == "Placeholder":
                rev[k] = frozenset({0})  # the data fed to the step
                continue
            h = flow.handle[k]
            if t in READS and h in trained:
                deps[k] = frozenset([h])
            ins = flow.inputs[k][1:] if t in READS else flow.inputs[k]
            if t in REVERSES:
                ins = ins[:1]
            d, r = deps[k], frozenset[int]()
            for j, _ in ins:
                if j < 0:
                    r |= external  # an eager input made outside any recorded op
                elif flow.phase[j] in FORWARD and j not in handle_nodes:
                    d, r = d | deps[j], r | rev[j]
            if k in flow.passes:
                d = d | (flow.passes[k] & trained)
            deps[k] = d
            rev[k] = frozenset(1 - p for p in r) if t in REVERSES else r
        self.upstream: dict[str, frozenset[str]] = {h: frozenset() for h in trained}
        self.reversed: dict[str, bool] = {h: False for h in trained}
        for k in range(n):
            if k not in live or flow.phase[k] not in FORWARD:
                continue
            direct = {flow.handle[j] for j, _ in flow.inputs[k] if j >= 0
                      and flow.op_type[j] in READS and flow.handle[j] in trained}
            direct |= set(flow.passes.get(k, frozenset()) & trained)
            if not direct:
                continue
            for h in direct:
                if h is None:
                    continue
                for j, _ in flow.inputs[k]:
                    if j < 0 or j in handle_nodes or flow.handle[j] == h:
                        continue
                    self.upstream[h] = self.upstream[h] | (deps[j] - {h})
                    if 1 in rev[j]:
                        self.reversed[h] = True

    def order(self, x: str, y: str) -> int:
        """-1 when x is upstream of y only, 1 when y of x only, else 0."""
        xy, yx = x in self.upstream.get(y, ()), y in self.upstream.get(x, ())
        return -1 if xy and not yx else 1 if yx and not xy else 0


def _live(flow: Flow, roles: Roles, n: int) -> set[int]:
    """The nodes whose values reach the loss (every node when no loss was found)."""
    end = roles.total or roles.loss
    if end is None:
        return set(range(n))
    seen, todo = {end[0]}, [end[0]]
    while todo:
        k = todo.pop()
        for j, _ in flow.inputs[k]:
            if j >= 0 and j not in seen:
                seen.add(j)
                todo.append(j)
    return seen


def untangle(vp: list[tuple[str, str]], fa: Features, ra: Roles, fb: Features, rb: Roles,
             same: SameValue | None, names_a: dict[str, str], notes: list[str]
             ) -> list[tuple[str, str]]:
    """`vp` with the partners within each group of one signature re-assigned by dependency
    order, direction and value at step 0 (see the module docstring); a group still tied says
    so in `notes`."""
    out = list(vp)
    groups: dict[tuple[int, int, int], list[int]] = {}
    for i, (ha, hb) in enumerate(vp):
        s = sig_class(ra.sig[ha])
        if s == sig_class(rb.sig[hb]):
            groups.setdefault(s, []).append(i)
    for idx in groups.values():
        if not 2 <= len(idx) <= MAX_GROUP:
            continue
        a = [vp[i][0] for i in idx]
        b = [vp[i][1] for i in idx]
        m = len(idx)
        values = [[bool(same and same(x, y)) for y in b] for x in a]
        best: list[tuple[tuple[int, int, int, int], tuple[int, ...]]] = []
        for perm in permutations(range(m)):
            clash = sum(1 for i in range(m) for j in range(i + 1, m)
                        if fa.order(a[i], a[j]) * fb.order(b[perm[i]], b[perm[j]]) < 0)
            ways = sum(fa.reversed[a[i]] == fb.reversed[b[perm[i]]] for i in range(m))
            vals = sum(values[i][perm[i]] for i in range(m))
            kept = sum(perm[i] == i for i in range(m))
            best.append(((-clash, ways, vals, kept), perm))
        best.sort(reverse=True)
        top, perm = best[0]
        if perm != tuple(range(m)):
            for i, j in enumerate(perm):
                out[idx[i]] = (a[i], b[j])
        tied = [p for s, p in best[1:] if s[:3] == top[:3]]
        if tied:
            alike = sorted({names_a.get(a[i], a[i]) for p in tied for i in range(m)
                            if p[i] != perm[i]})
            notes.append(f"{', '.join(alike)}: the same shape and used alike (nothing in what "
                         "their values feed, nor their values at step 0, tells which of B's "
                         "is which): paired in forward order")
    return out
