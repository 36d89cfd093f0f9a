"""Stage 3, the layer outputs: two runs' layer outputs of one step paired by the set of
paired variables they depend on, then within one set by what each output is (`blocks`):

- the deepest of a set with the deepest first (what the next layer reads, so an activation
  one run adds is compared where it changes the values) when both are of a kind, else the
  deepest values — unless both are inputs of a block (`Roles.layer_joins`): a tower's
  output under a merge, which one run may normalize inside the merge (`Dot(normalize=True)`)
  where the other does not, so the tower's own outputs pair in order;
- **values** (a layer's own output) in forward order by dtype class, rank and size;
- **layouts** (heads split off, a flatten) with layouts;
- the one value left of each, when one run keeps a head axis (`[4, 3, 4]` against
  `[4, 3, 2, 2]`: the same size), compared as a regrouping of the same elements (not with
  the other's heads split off: a projection's output is compared with a projection's);
- what is left of both, then, in order (a flatten one run fuses into its conv's line);
- **block intermediates** (attention's scores and context) only with one the other run
  computes alike (the same `blocks.recipe`): where the blocks have no common
  intermediate, the layers around them are compared and a note says what was not.

`difflib` keeps the order: an output one run lacks stays unpaired without shifting the
rest. Where both models end in a block (two towers merged by a dot product, a cosine), the
model's output — what each loss reads — is paired whatever the recipe (`_merged`).

The model's output is paired first (`output_transforms`): a transform without weights after
the last weighted layer's output (a sigmoid, a row normalization, a bound `2 * tanh(z)`) is
compared with the same transform of the other run, never with its logits; the weighted
outputs are paired here like any layer's. A hidden layer's missing activation is still
compared where it changes the values.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.blocks import BLOCK, LAYOUT, VALUE
from tfdbg_tui.core.compare.contract.model import RunModel
from tfdbg_tui.core.compare.contract.output_transforms import transform_pairs
from tfdbg_tui.core.compare.contract.quantities import Q_LAYER
from tfdbg_tui.core.compare.contract.roles import Roles
from tfdbg_tui.core.compare.contract.tensors import Sig, Tensor, sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.pairing import StepPairs

LayerPair = tuple[int, Tensor, Tensor]  # A's layer index, A's tensor, B's


def pair_layer_outputs(out: StepPairs, k: int, ma: RunModel, ra: Roles, mb: RunModel,
                       rb: Roles, vp: list[tuple[str, str]]) -> None:
    """Add step k's layer-output pairs to `out`; at step 0, a note naming the block
    intermediates left unpaired."""
    drop_a, drop_b, heads = transform_pairs(ma, k, ra, mb, rb, vp)
    pairs, left_a, left_b = pair_layers(ra, rb, vp, drop_a, drop_b)
    pairs = sorted(pairs + heads + _merged(ma, k, ra, mb, rb, pairs + heads),
                   key=lambda x: x[0])
    for j, ta, tb in pairs:
        xa, xb = unflattened(ma, k, ta, mb, tb)
        got = out.add(ma.row(k, xa), mb.row(k, xb), k, Q_LAYER, f"layer {j + 1} output")
        if got >= 0:
            alt = (ma.row(k, _transposed(ma, k, ra, ta)), mb.row(k, _transposed(mb, k, rb, tb)))
            if alt != (None, None):
                out.relaid[got] = alt
    if k == 0 and (left_a or left_b):
        out.notes.append(_block_note(ma, ra, left_a, mb, rb, left_b))


def _merged(ma: RunModel, k: int, ra: Roles, mb: RunModel, rb: Roles,
            pairs: list[LayerPair]) -> list[LayerPair]:
    """The model's output, where both models end in a block — a merge of parallel layers
    (two towers' dot product, their cosine) — paired whatever recipe each run computes it
    by: a block's intermediates pair only where both runs compute them alike, but what the
    loss reads of the model (`Roles.prediction`) is the prediction in both, and a mistake in
    the merge is seen there first. Labelled as A's last layer output."""
    ta, tb = ra.prediction, rb.prediction
    if not ra.layers or not rb.layers or ta is None or tb is None \
            or _kind(ra, len(ra.layers) - 1) != BLOCK or _kind(rb, len(rb.layers) - 1) != BLOCK \
            or any(x == ta or y == tb for _, x, y in pairs):
        return []
    sa, sb = _sig_of(ma, k, ta), _sig_of(mb, k, tb)
    if -1 in sa or (sa[0], sa[2]) != (sb[0], sb[2]):
        return []
    return [(len(ra.layers) - 1, ta, tb)]


def unflattened(ma: RunModel, k: int, ta: Tensor, mb: RunModel, tb: Tensor
                ) -> tuple[Tensor, Tensor]:
    """The tensors to compare for layer outputs `ta` and `tb` of step k: a reshape (a
    Flatten) paired with a tensor of another shape is compared at the reshape's input when
    that input has the other's shape. An eager model call runs a conv, its activation and
    the Flatten after it on one line, so the Flatten's reshape is its group's deepest output,
    while a TF1 program flattens on a line of its own: the activation is the layer's
    output, and a reshape of it is no activation to compare it with (a wrong activation
    would be shown at the Flatten's line)."""
    sa, sb = _sig_of(ma, k, ta), _sig_of(mb, k, tb)
    if sa == sb or -1 in sa or -1 in sb:
        return ta, tb
    ra, rb = _reshaped(ma, k, ta), _reshaped(mb, k, tb)
    if ra is not None and rb is None and _sig_of(ma, k, ra) == sb:
        return ra, tb
    if rb is not None and ra is None and _sig_of(mb, k, rb) == sa:
        return ta, rb
    return ta, tb


def _reshaped(model: RunModel, k: int, t: Tensor) -> Tensor | None:
    """The data input of `t` when `t` is a reshape's output, else None."""
    flow = model.steps[k][0]
    node = t[0]
    if not 0 <= node < len(flow) or flow.op_type[node] != "Reshape" or not flow.inputs[node]:
        return None
    src = flow.inputs[node][0]
    return src if src[0] >= 0 else None


def _sig_of(model: RunModel, k: int, t: Tensor) -> Sig:
    """(dtype class, rank, size) of tensor `t` of step k's flow (-1s: unknown)."""
    flow = model.steps[k][0]
    table = model.cache.get(("sig", id(flow)))
    node, slot = t
    if table is None or not 0 <= node < table.shape[0] or not 0 <= slot < table.shape[1]:
        return (-1, -1, -1)
    s = table[node, slot]
    return sig_class((int(s[0]), int(s[1]), int(s[2])))


def _transposed(model: RunModel, k: int, roles: Roles, t: Tensor) -> Tensor | None:
    """The layer output of `t`'s group that is `t` transposed (a `Transpose` whose data input
    is `t`): the same layer's output as the run lays it out next — Keras' recurrent layers
    stack their states time-major in the loop, then transpose them batch-major."""
    flow = model.steps[k][0]
    group = next((g for g, x in roles.layers if x == t), None)
    for i, (g, x) in enumerate(roles.layers):
        n = x[0]
        if (g == group and _kind(roles, i) == LAYOUT and 0 <= n < len(flow)
                and flow.op_type[n] == "Transpose" and flow.inputs[n][:1] == [t]):
            return x
    return None


def pair_layers(ra: Roles, rb: Roles, vp: list[tuple[str, str]],
                drop_a: set[int] | None = None, drop_b: set[int] | None = None
                ) -> tuple[list[LayerPair], list[int], list[int]]:
    """The layer pairs (see the module docstring), and the block intermediates of A and of
    B left unpaired (indices into each run's `layers`) whose variables are all paired;
    `drop_a`, `drop_b`: outputs of each run left to `output_transforms`."""
    to_b = dict(vp)
    paired_b = set(to_b.values())
    by_set_a: dict[frozenset[str], list[int]] = {}
    by_set_b: dict[frozenset[str], list[int]] = {}
    whole_a: set[int] = set()  # A's outputs whose variables all have partners
    keep_a = _comparable(ra, rb) - (drop_a or set())
    keep_b = _comparable(rb, ra) - (drop_b or set())
    for i, (ga, _) in enumerate(ra.layers):
        if i not in keep_a:
            continue
        want = frozenset(to_b[h] for h in ga if h in to_b)
        if want:
            by_set_a.setdefault(want, []).append(i)
        if ga and all(h in to_b for h in ga):
            whole_a.add(i)
    for j, (gb, _) in enumerate(rb.layers):
        if j in keep_b:
            by_set_b.setdefault(frozenset(gb & paired_b), []).append(j)
    out: list[LayerPair] = []
    done_a: set[int] = set()
    done_b: set[int] = set()
    for want, ks in by_set_a.items():
        js = by_set_b.get(want, [])
        got: list[tuple[int, int]] = []
        if js:
            got = _pair_set(ra, ks, rb, js)
        for i, j in got:
            out.append((i, ra.layers[i][1], rb.layers[j][1]))
            done_a.add(i)
            done_b.add(j)
    out.sort(key=lambda x: x[0])
    left_a = [i for i in sorted(whole_a) if i not in done_a and _kind(ra, i) == BLOCK]
    left_b = [j for j, (gb, _) in enumerate(rb.layers) if j in keep_b
              and j not in done_b and _kind(rb, j) == BLOCK and gb and gb <= paired_b]
    return out, left_a, left_b


def _comparable(roles: Roles, other: Roles) -> set[int]:
    """The indices of `roles`' layer outputs to pair with `other`'s: all of them, unless only
    this run tells which of the model's inputs a shared layer's output was computed from (a
    tower applied to two inputs: a graph's placeholders say, an eager run's records do not):
    then, per layer, the one output the other run's grouping keeps — its deepest
    application — so that one tower's output is never compared with the other's."""
    keys = roles.layer_keys
    if len(keys) != len(roles.layers) or not any(k[3] for k in keys) \
            or any(k[3] for k in other.layer_keys):
        return set(range(len(roles.layers)))
    last: dict[tuple[object, ...], int] = {}
    for i, k in enumerate(keys):  # in forward order: the last is the deepest
        last[k[:3]] = i
    return set(last.values())


def _pair_set(ra: Roles, ks: list[int], rb: Roles, js: list[int]) -> list[tuple[int, int]]:
    """Pairs (A index, B index) of the outputs of one variable set, in forward order: stage
    by stage (`Roles.layer_stages`) when both runs have the same stages without weights in
    it, so that a pooling's output taken as the deepest of the set leaves the layer it pools
    to be paired with the other run's (a residual `x + attention` with the residual, not
    with the attention's projection before it); as one list where the stages differ."""
    sa, sb = _by_stage(ra, ks), _by_stage(rb, js)
    if len(sa) > 1 and sa.keys() == sb.keys():
        return [p for s in sorted(sa) for p in _pair_stage(ra, sa[s], rb, sb[s])]
    return _pair_stage(ra, ks, rb, js)


def _by_stage(roles: Roles, idx: list[int]) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for i in idx:
        out.setdefault(roles.layer_stages[i] if i < len(roles.layer_stages) else 0,
                       []).append(i)
    return out


def _pair_stage(ra: Roles, ks: list[int], rb: Roles, js: list[int]) -> list[tuple[int, int]]:
    """Pairs (A index, B index) of the outputs of one variable set and stage."""
    got: list[tuple[int, int]] = []
    va = [i for i in ks if _kind(ra, i) == VALUE]
    vb = [j for j in js if _kind(rb, j) == VALUE]
    rest_a = [i for i in ks if _kind(ra, i) != BLOCK]
    rest_b = [j for j in js if _kind(rb, j) != BLOCK]
    # the deepest with the deepest, when both are of a kind (a flatten with a flatten), else
    # the deepest values (a residual with a residual, past a reshape one run adds) — unless
    # both are what a block reads (a merge's inputs): a weightless transform one run makes
    # of a tower's output inside the merge (Keras' `Dot(normalize=True)` normalizes each
    # input) is no output of the tower, which is then paired in order with the other's
    for xa, xb in ((rest_a, rest_b), (va, vb)):
        if xa and xb and _kind(ra, xa[-1]) == _kind(rb, xb[-1]) \
                and _sig(ra, xa[-1]) == _sig(rb, xb[-1]) \
                and not (_joins(ra, xa[-1]) and _joins(rb, xb[-1])):
            got.append((xa[-1], xb[-1]))
            break
    got += _matched(ra, va, rb, vb, got, _sig)
    la = [i for i in ks if _kind(ra, i) == LAYOUT]
    lb = [j for j in js if _kind(rb, j) == LAYOUT]
    got += _matched(ra, la, rb, lb, got, _sig)
    used_a, used_b = {i for i, _ in got}, {j for _, j in got}
    left_a, left_b = [i for i in va if i not in used_a], [j for j in vb if j not in used_b]
    if len(left_a) == len(left_b) == 1 and _size(ra, left_a[0]) == _size(rb, left_b[0]):
        got.append((left_a[0], left_b[0]))  # the one value left of each, regrouped
    got += _matched(ra, rest_a, rb, rest_b, got, _sig)
    ba = [i for i in ks if _kind(ra, i) == BLOCK]
    bb = [j for j in js if _kind(rb, j) == BLOCK]
    got += _matched(ra, ba, rb, bb, got, _sig_recipe)
    return got


def _matched(ra: Roles, ks: list[int], rb: Roles, js: list[int],
             taken: list[tuple[int, int]], key: Callable[[Roles, int], Hashable]
             ) -> list[tuple[int, int]]:
    """`difflib` on `key` over the outputs not yet paired, in order."""
    used_a = {i for i, _ in taken}
    used_b = {j for _, j in taken}
    ks = [i for i in ks if i not in used_a]
    js = [j for j in js if j not in used_b]
    m = SequenceMatcher(None, [key(ra, i) for i in ks], [key(rb, j) for j in js],
                        autojunk=False)
    return [(ks[b.a + n], js[b.b + n]) for b in m.get_matching_blocks() for n in range(b.size)]


def _joins(roles: Roles, i: int) -> bool:
    return roles.layer_joins[i] if i < len(roles.layer_joins) else False


def _kind(roles: Roles, i: int) -> int:
    return roles.layer_kinds[i] if i < len(roles.layer_kinds) else VALUE


def _sig(roles: Roles, i: int) -> Hashable:
    return roles.layer_sigs[i] if i < len(roles.layer_sigs) else (-1, -1, -1)


def _size(roles: Roles, i: int) -> Hashable:
    """dtype class and size, the rank left out (a head axis kept or merged)."""
    s = roles.layer_sigs[i] if i < len(roles.layer_sigs) else (-1, -1, -1)
    return (s[0], s[2]) if s[2] >= 0 else ("unknown", id(roles), i)  # pairs with nothing


def _sig_recipe(roles: Roles, i: int) -> Hashable:
    recipe = roles.layer_recipes[i] if i < len(roles.layer_recipes) else ""
    return (_sig(roles, i), recipe or ("unknown", id(roles), i))


def _block_note(ma: RunModel, ra: Roles, left_a: list[int], mb: RunModel, rb: Roles,
                left_b: list[int]) -> str:
    def names(model: RunModel, roles: Roles, idx: list[int]) -> str:
        flow = model.steps[0][0]
        got = [flow.name[n] or flow.op_type[n] for n in (roles.layers[i][1][0] for i in idx)]
        return ", ".join(got[:4]) + (f" and {len(got) - 4} more" if len(got) > 4 else "")

    sides = [f"{side}'s {names(m, r, idx)}" for side, m, r, idx in
             (("A", ma, ra, left_a), ("B", mb, rb, left_b)) if idx]
    return (f"not compared: {' and '.join(sides)}, intermediates of a block that combines "
            "several layers' outputs, which the runs compute in other ops; what the block "
            "reads and what it makes (its inputs, its output or the model's) are compared")
