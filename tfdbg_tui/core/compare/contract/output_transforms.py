"""Stage 3, the model's output: a transform without weights after the last weighted layer's
output is compared with the same transform of the other run, never with its logits.

Users end a model in many ways after its last weighted layer: a probability activation
(`sigmoid(logits)` feeding `log_loss`), a row normalization (`l2_normalize(z)` under a cosine
distance, `z * rsqrt(sum(z²))` written by hand, Keras' `UnitNormalization`), a bound
(`2 * tanh(z)`, `Rescaling`), a clip, a temperature. One run computes it as a layer of its own
(a TF1 line); the other inside its loss (Keras' `CosineSimilarity` normalizes both sides
itself; `BinaryCrossentropy()` reads the logits its sigmoid cached), in the training step's
own code (which `roles` takes for the loss's, an eager constant being data it cannot tell from
the targets), in a Keras layer of another recipe, or not at all. Paired deepest with deepest,
the transform stood against the other run's logits: a layer output "differing" at every step
of equivalent runs, or the mistake's line never shown.

So, per run, its **head** (`_head`): the last weighted output of the last layer's variables
(an op that reads a variable: the Dense's BiasAdd) and the layer outputs after it that are
computed from it alone, without another variable (the **transforms**), each with its
**recipe** (the op types between the weighted output and it). The weighted outputs pair with
each other (`layer_pairing`); a transform pairs with the other run's transform of the same
recipe: among its layer outputs, else any tensor computed so from its weighted output on the
way to its loss (the l2_normalize an eager step runs before its loss, which `roles` took for
the loss's). One transform left on each side (`l2_normalize` against `UnitNormalization`:
other recipes, one computation each run ends its model with) pair with each other.

What is left is told apart by where it is computed. A transform on a line or layer of its own
after the weighted layer's output (TF1's `sigmoid(logits)`, `l2_normalize(z)`) is left
unpaired: how the loss is formed from the logits is the loss's question, compared next. A
weighted layer's own activation (Keras' `Dense(1, "sigmoid")`, the BiasAdd no layer output of
its own: the transform is **fused**) is that layer's output, compared with the other run's
weighted layer output — a sigmoid added before a hinge loss is a layer output that differs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tfdbg_tui.core.compare.contract.blocks import VALUE
from tfdbg_tui.core.compare.contract.dataflow import FORWARD, READS, Flow
from tfdbg_tui.core.compare.contract.loops import feeding
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.tensors import Sig, Tensor, sig_class

_PASS = frozenset({"Identity", "Cast"})  # a read seen through these is still the variable's
_MAX_OPS = 64  # a transform is a few ops; a longer chain is a model, not a transform

LayerPair = tuple[int, Tensor, Tensor]  # A's layer index (its label), A's tensor, B's


@dataclass
class Head:
    """One run's model output at one step (see the module docstring)."""

    weighted: int  # node: the last weighted output of the last layer's variables
    layer: int | None  # its index in `Roles.layers`; None: fused with a transform after it
    group: frozenset[str]  # those variables
    transforms: list[int]  # indices into `Roles.layers`, in order
    recipes: list[tuple[str, ...]]
    fused: list[bool]  # per transform: the weighted layer's own output (no layer between)


def transform_pairs(ma: RunModel, k: int, ra: Roles, mb: RunModel, rb: Roles,
                    vp: list[tuple[str, str]]) -> tuple[set[int], set[int], list[LayerPair]]:
    """Step k's transforms of the model's output: A's and B's layer outputs left out of
    `layer_pairing`'s pairing, and the pairs they make (see the module docstring). Nothing
    where neither run has a transform as a layer output."""
    ha, hb = _head(ma, k, ra), _head(mb, k, rb)
    if ha is None or hb is None or not (ha.transforms or hb.transforms):
        return set(), set(), []
    to_b = dict(vp)
    if frozenset(to_b[h] for h in ha.group if h in to_b) != hb.group & set(to_b.values()):
        return set(), set(), []  # the two heads are not of the same layer
    drop_a, drop_b = set(ha.transforms), set(hb.transforms)
    pairs: list[LayerPair] = []
    used_a: set[int] = set()  # nodes of each run paired
    used_b: set[int] = set()
    left_a: list[int] = []
    for i, recipe in zip(ha.transforms, ha.recipes, strict=True):
        ta = ra.layers[i][1]
        tb = next((rb.layers[j][1] for j, r in zip(hb.transforms, hb.recipes, strict=True)
                   if r == recipe and rb.layers[j][1][0] not in used_b
                   and _same_sig(ma, k, ta, mb, rb.layers[j][1])), None) \
            or _computed(mb, k, rb, hb, recipe, ma, ta)
        if tb is None or tb[0] in used_b:
            left_a.append(i)
            continue
        pairs.append((i, ta, tb))
        used_a.add(ta[0])
        used_b.add(tb[0])
    left_b: list[int] = []
    for j, recipe in zip(hb.transforms, hb.recipes, strict=True):
        tb = rb.layers[j][1]
        if tb[0] in used_b:
            continue
        found = _computed(ma, k, ra, ha, recipe, mb, tb)
        if found is None or found[0] in used_a:
            left_b.append(j)
            continue
        pairs.append((len(ra.layers) - 1, found, tb))  # labelled as A's last layer's
        used_a.add(found[0])
    if len(left_a) == len(left_b) == 1 and _same_sig(ma, k, ra.layers[left_a[0]][1], mb,
                                                     rb.layers[left_b[0]][1]):
        # one transform each run ends its model with, of other recipes: compared
        pairs.append((left_a[0], ra.layers[left_a[0]][1], rb.layers[left_b[0]][1]))
        return drop_a, drop_b, pairs
    # a weighted layer's own activation (Keras' Dense(1, "sigmoid")) only one run has: the
    # layer's output, compared with the other run's weighted layer output
    fused_a = [i for i in left_a if ha.fused[ha.transforms.index(i)]]
    fused_b = [j for j in left_b if hb.fused[hb.transforms.index(j)]]
    if len(fused_a) == 1 and not fused_b and hb.layer is not None \
            and _same_sig(ma, k, ra.layers[fused_a[0]][1], mb, rb.layers[hb.layer][1]):
        pairs.append((fused_a[0], ra.layers[fused_a[0]][1], rb.layers[hb.layer][1]))
        drop_b.add(hb.layer)
    elif len(fused_b) == 1 and not fused_a and ha.layer is not None \
            and _same_sig(ma, k, ra.layers[ha.layer][1], mb, rb.layers[fused_b[0]][1]):
        pairs.append((ha.layer, ra.layers[ha.layer][1], rb.layers[fused_b[0]][1]))
        drop_a.add(ha.layer)
    return drop_a, drop_b, pairs


def _head(model: RunModel, k: int, roles: Roles) -> Head | None:
    """This run's head at step k, or None where the last layer output is no weighted output
    or transform of one (a reshape, a residual sum, a block): such runs are paired as
    `layer_pairing` pairs any layer."""
    if not roles.layers or not 0 <= k < len(model.steps):
        return None
    flow = model.steps[k][0]
    trained = model.training.trained
    wf = _weightful(model, flow, trained)
    group = roles.layers[-1][0]
    i, trailing = len(roles.layers) - 1, []
    while i >= 0 and roles.layers[i][0] == group and _kind(roles, i) == VALUE \
            and not _weighted(flow, roles.layers[i][1][0], trained):
        trailing.append(i)
        i -= 1
    trailing.reverse()
    layer: int | None = None
    if i >= 0 and roles.layers[i][0] == group and _kind(roles, i) == VALUE \
            and _weighted(flow, roles.layers[i][1][0], trained):
        layer = i
        weighted: int | None = roles.layers[i][1][0]
    elif trailing:  # fused with its activation in one layer (Dense(4, "tanh"))
        weighted = _weighted_before(flow, roles.layers[trailing[0]][1][0], wf, trained)
    else:
        return None
    if weighted is None:
        return None
    nodes = {t[0] for _, t in roles.layers}
    recipes, fused = [], []
    for t in trailing:
        node = roles.layers[t][1][0]
        got = _recipe(flow, weighted, node, wf)
        if got is None:
            return None
        recipes.append(got[0])
        fused.append(layer is None and not (got[1] - {node}) & nodes)
    return Head(weighted, layer, group, trailing, recipes, fused)


def _computed(model: RunModel, k: int, roles: Roles, head: Head, recipe: tuple[str, ...],
              other: RunModel, t: Tensor) -> Tensor | None:
    """The first tensor of this run's step k computed from its head's weighted output by
    `recipe`, ending in `t`'s op, of its signature, recorded and on the way to the loss;
    None if none is."""
    if roles.loss is None or not recipe:
        return None
    flow = model.steps[k][0]
    last = other.steps[k][0].op_type[t[0]]
    # the candidates depend on the step's roles only (a graph's are every step's): once each
    key = (f"transform:{last}:{','.join(recipe)}:{head.weighted}", id(roles))
    found = model.cache.get(key)
    if found is None:
        feeds = feeding(flow, roles.loss[0])
        wf = _weightful(model, flow, model.training.trained)
        ok = []
        start = head.weighted + 1
        for c in (np.flatnonzero(feeds[start:] & wf[start:]) + start).tolist():
            if flow.op_type[c] == last and flow.phase[c] in FORWARD:
                got = _recipe(flow, head.weighted, c, wf)
                if got is not None and got[0] == recipe:
                    ok.append(c)
        found = model.cache[key] = np.asarray(ok, np.int64)
    for c in found.tolist():
        if model.row(k, (c, 0)) is not None and _same_sig(model, k, (c, 0), other, t):
            return (c, 0)
    return None


def _recipe(flow: Flow, weighted: int, node: int, wf: np.ndarray
            ) -> tuple[tuple[str, ...], set[int]] | None:
    """The op types (sorted) computing `node` from `weighted` alone — every operand that
    depends on a variable is `weighted` or one of these ops — and those ops; None where
    another variable or too many ops take part."""
    seen: set[int] = set()
    todo = [node]
    while todo:
        v = todo.pop()
        if v == weighted or v in seen:
            continue
        if flow.op_type[v] in READS or len(seen) >= _MAX_OPS or v < weighted:
            return None
        seen.add(v)
        todo += [j for j, _ in flow.inputs[v] if 0 <= j < len(flow) and wf[j]]
    return tuple(sorted(flow.op_type[v] for v in seen if flow.op_type[v] not in _PASS)), seen


def _weighted_before(flow: Flow, node: int, wf: np.ndarray, trained: set[str]) -> int | None:
    """The weighted op `node` is computed from through a chain of ops with one operand that
    depends on a variable each (Keras' Dense(4, "tanh") under `2 * tanh(…)` on one line:
    its BiasAdd); None where the chain forks or is too long."""
    v = node
    for _ in range(_MAX_OPS):
        ins = {j for j, _ in flow.inputs[v] if 0 <= j < len(flow) and wf[j]}
        if len(ins) != 1:
            return None
        v = ins.pop()
        if _weighted(flow, v, trained):
            return v
    return None


def _weighted(flow: Flow, node: int, trained: set[str]) -> bool:
    """Whether `node` reads a trained variable among its operands (through a cast)."""
    if not 0 <= node < len(flow) or flow.op_type[node] in READS:
        return False
    for j, _ in flow.inputs[node]:
        while 0 <= j < len(flow) and flow.op_type[j] in _PASS and flow.inputs[j]:
            j = flow.inputs[j][0][0]
        if 0 <= j < len(flow) and flow.op_type[j] in READS and flow.handle[j] in trained:
            return True
    return False


def _weightful(model: RunModel, flow: Flow, trained: set[str]) -> np.ndarray:
    """Per node of `flow`, whether it depends on a trained variable's read (cached)."""
    key = ("weightful", id(flow))
    got = model.cache.get(key)
    if got is not None:
        return got
    n = len(flow)
    out = np.zeros(n, bool)
    for v in range(n):
        if flow.op_type[v] in READS:
            out[v] = flow.handle[v] in trained
        else:
            out[v] = any(0 <= j < v and out[j] for j, _ in flow.inputs[v])
    model.cache[key] = out
    return out


def _same_sig(ma: RunModel, k: int, ta: Tensor, mb: RunModel, tb: Tensor) -> bool:
    sa, sb = _sig(ma, k, ta), _sig(mb, k, tb)
    return sa == sb and -1 not in sa


def _sig(model: RunModel, k: int, t: Tensor) -> Sig:
    """(dtype class, rank, size) of tensor `t` of step k (-1s: unknown)."""
    table = model.cache.get(("sig", id(model.steps[k][0])))
    node, slot = t
    if table is None or not 0 <= node < table.shape[0] or not 0 <= slot < table.shape[1]:
        return (-1, -1, -1)
    s = table[node, slot]
    return sig_class((int(s[0]), int(s[1]), int(s[2])))


def _kind(roles: Roles, i: int) -> int:
    return roles.layer_kinds[i] if i < len(roles.layer_kinds) else VALUE
