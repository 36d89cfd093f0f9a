"""Stage 2: what each tensor of a training step *is*: a variable's value, a layer's output,
the loss,
the learning rate, a gradient — found by dataflow, never by op names.

On one `Flow` (see `dataflow`), for one of its steps:
- the **variables** are the trained handles, in the order the forward pass first uses them
  (the depth of the op consuming their read), each with its first forward read;
- a **gradient** is what the variable's update consumes: the apply op's gradient input, or
  for an assignment, walking back from the assigned value through the optimizer's arithmetic
  (a read of a slot variable follows that slot's last assignment) to the first backward-pass
  tensor shaped like the variable. Eager tape results reach the optimizer as new tensors
  without a recorded producer: there the backward pass's terminal tensors shaped like the
  variable are taken, last layer first (backprop's order);
- the **learning rate** is the scalar the update multiplies the gradient by (or the apply op's
  learning-rate input) — so a schedule evaluated a second time just to log it is not it;
- the **loss** is the deepest forward scalar that depends on every variable (and that
  the backward pass differentiates, `loss_node`);
- each **layer output** is, among the forward tensors depending on the same set of variables,
  the deepest one computed by a layer-like op (matmul, bias, activation, conv, pooling...):
  an activation inserted after a layer is that layer's output, so a divergence there is
  reported at the layer and not one layer later.

What the updates consume (gradients raw and applied, the learning rate and its schedule) is
found in `update_roles`; the loss is split into its data term and penalties here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from reader import GRAPH
from tfdbg_tui.core.compare.contract.blocks import (
    BLOCK,
    joined,
    joins,
    kind_of,
    layout_of,
    recipe,
)
from tfdbg_tui.core.compare.contract.dataflow import (
    BWD,
    FORWARD,
    FWD,
    METRIC,
    READS,
    UPDATES,
    Flow,
    training_update,
)
from tfdbg_tui.core.compare.contract.layer_groups import (
    LAYER_OPS,
    Groups,
    LayerKey,
    assembled,
    before_bias,
    data_products,
    forks,
    inner_steps,
    layer_key_of,
    leaving,
    parts_of,
    pooling,
    stages,
    subtraction_ends_layer,
    unit_outputs,
)
from tfdbg_tui.core.compare.contract.loops import feeding, loop_results
from tfdbg_tui.core.compare.contract.loss_node import loss_entry, loss_node, tape_target
from tfdbg_tui.core.compare.contract.loss_terms import split_loss
from tfdbg_tui.core.compare.contract.model_output import loss_side, step_data
from tfdbg_tui.core.compare.contract.reads import GATHER, rows_read, value_uses, whole_reads
from tfdbg_tui.core.compare.contract.tape_anchors import anchored_gradients
from tfdbg_tui.core.compare.contract.tensors import FLOATS, SHAPE_ONLY, Sig, Tensor, sig_class
from tfdbg_tui.core.compare.contract.unlinked_grads import tape_gradients, unlinked_applied
from tfdbg_tui.core.compare.contract.update_roles import applied_after, lr_chain, walk


@dataclass
class Roles:
    variables: list[str] = field(default_factory=list)  # handles, forward order
    sig: dict[str, Sig] = field(default_factory=dict)
    read: dict[str, Tensor] = field(default_factory=dict)
    grad: dict[str, Tensor] = field(default_factory=dict)  # as the backward pass made it
    # the gradient as the update consumed it (after clipping or scaling, wherever done)
    applied: dict[str, Tensor] = field(default_factory=dict)
    lr: Tensor | None = None
    # the rate each variable's update consumes (two optimizers for two parts of a model)
    lr_of: dict[str, Tensor] = field(default_factory=dict)
    loss: Tensor | None = None
    layers: list[tuple[frozenset[str], Tensor]] = field(default_factory=list)  # depth order
    layer_sigs: list[Sig] = field(default_factory=list)
    # per layer output: `blocks.VALUE`, `LAYOUT` or `BLOCK`, and for a block's intermediate
    # how the block computes it (`blocks.recipe`; "" otherwise)
    layer_kinds: list[int] = field(default_factory=list)
    layer_recipes: list[str] = field(default_factory=list)
    # per layer output, whether a block reads it (a merge's input: one tower's output under
    # two towers' dot product, a query under q·kᵀ) — see `layer_pairing._pair_stage`
    layer_joins: list[bool] = field(default_factory=list)
    # per layer output, its group (`layer_groups.layer_key_of`: the inputs it is computed
    # from among them, where a graph tells them apart)
    layer_keys: list[LayerKey] = field(default_factory=list)
    # per layer output, how many stages without weights lie between it and where its
    # variables entered (`layer_groups.stages`): a pooling's output is not its input's peer
    layer_stages: list[int] = field(default_factory=list)
    update: dict[str, int] = field(default_factory=dict)  # the node updating each variable
    loss_entry: int | None = None  # the first op of the loss function (its line: the loss's)
    prediction: Tensor | None = None  # what the loss function reads of the model (its output)
    # the schedule's computation of the learning rate, in dataflow order (the rate itself
    # last): a schedule's intermediate can differ where the rate is within tolerance
    lr_chain: list[Tensor] = field(default_factory=list)
    # non-trainable state (batch norm's moving statistics): its first read in the step (the
    # value the previous step's update left), in forward order, and the node updating it
    state: list[str] = field(default_factory=list)
    # the loss as the sum of a data term and penalties (of weights, L2; or of activations,
    # `loss_terms`): `loss` is then the data term, `total` the sum, `penalties` the others
    total: Tensor | None = None
    penalties: list[Tensor] = field(default_factory=list)
    activity: set[Tensor] = field(default_factory=set)  # penalties computed from activations
    # the loss adds terms computed from the layers' outputs that the targets did not tell
    # apart (the targets unknown, or read by several): kept whole (`loss_terms.comparable`)
    undecided: bool = False
    state_read: dict[str, Tensor] = field(default_factory=dict)
    state_update: dict[str, int] = field(default_factory=dict)
    # embeddings whose update sums the gradient rows of repeated ids first (TF1's sparse
    # apply ops): their gradient as applied has other rows than the other run's
    summed: set[str] = field(default_factory=set)


def analyse(flow: Flow, step: int, trained: set[str], sig_of: np.ndarray) -> Roles:
    """The roles of flow `flow`'s tensors in its step `step` (`sig_of[node, slot]` is the
    (dtype, rank, size) of that tensor, -1 where unknown)."""
    rows = flow.rows[step]
    n = len(flow)
    traced = rows >= 0

    def sig(t: Tensor) -> Sig:
        node, slot = t
        if node < 0 or slot >= sig_of.shape[1]:
            return (-1, -1, -1)
        s = sig_of[node, slot]
        return (int(s[0]), int(s[1]), int(s[2]))

    consumers: list[list[int]] = [[] for _ in range(n)]
    for k, ins in enumerate(flow.inputs):
        for j, _ in ins:
            if j >= 0:
                consumers[j].append(k)
    roles = Roles()
    # forward depth and which variables each forward tensor depends on
    depth = np.zeros(n, np.int64)
    deps: list[frozenset[str]] = [frozenset()] * n
    # computed from the backward pass: the optimizer's arithmetic, whatever code it ran in
    # (Keras 3's `var.assign_sub(u)` is `var - u` then an assignment, in no optimizer file):
    # never a forward value, so no layer's output and no line of the forward pass
    after_bwd = np.zeros(n, bool)
    for k in range(n):
        after_bwd[k] = flow.phase[k] == BWD or any(
            0 <= j < k and after_bwd[j] for j, _ in flow.inputs[k])
        if flow.phase[k] not in FORWARD or after_bwd[k]:
            continue
        h = flow.handle[k]
        if flow.op_type[k] in READS and h in trained:
            deps[k] = frozenset([h])
            continue
        d, acc = 0, frozenset[str]()
        if flow.op_type[k] in SHAPE_ONLY:  # a shape carries no value of the variables
            continue
        for j, _ in flow.inputs[k]:
            if j >= 0 and flow.phase[j] in FORWARD:
                d = max(d, int(depth[j]) + 1)
                acc = acc | deps[j]
        if k in flow.passes:  # a loop or call given a variable's handle reads it (`loops`)
            acc = acc | (flow.passes[k] & trained)
        depth[k], deps[k] = d, acc
    # variables in forward order, with their first forward read — of the reads the loss is
    # computed from, where there are: a read after the update (an exponential moving
    # average of the weights, `shadow -= (shadow - w) * (1 - decay)`) is no read of the step's
    step_read = [flow.op_type[k] in READS and flow.handle[k] in trained
                 and flow.phase[k] in FORWARD and bool(traced[k, 0]) for k in range(n)]
    best = loss_node(flow, deps, depth, traced, sig,
                     frozenset(flow.handle[k] or "" for k in range(n) if step_read[k]),
                     consumers)
    if best is None:  # the forward dataflow is cut: what the tape differentiates
        best = tape_target(flow, deps, depth, traced, sig, consumers)
    to_loss = feeding(flow, best[1]) if best is not None else np.ones(n, bool)
    has_feeding = {flow.handle[k] for k in range(n) if step_read[k] and to_loss[k]}
    first_use: dict[str, tuple[int, int]] = {}
    for k in range(n):
        h = flow.handle[k]
        if step_read[k] and h is not None and (to_loss[k] or h not in has_feeding):
            # a read only measured for its shape (Keras' Embedding asks the table's) is no use
            uses = value_uses(flow, k, consumers)
            key = min(((int(depth[c]), c) for c in uses), default=(1 << 30, k))
            if h not in first_use or key < first_use[h]:
                first_use[h] = key
                roles.read[h], roles.sig[h] = rows_read(flow, k, consumers, sig) or (
                    (k, 0), sig((k, 0)))
    roles.variables = sorted(first_use, key=lambda h: first_use[h])
    # state: its first read that the step uses (a resource variable's `Read/ReadVariableOp`
    # that nothing consumes runs only when fetched), else its first read; its last update
    # (an initializer's assignment comes first)
    state_reads: dict[str, list[tuple[bool, int]]] = {}
    for k in range(n):
        h = flow.handle[k]
        if h is None or h not in flow.state:
            continue
        if flow.op_type[k] in READS and traced[k, 0]:
            used = any(flow.phase[c] in FORWARD or flow.op_type[c] in UPDATES
                       for c in consumers[k])
            state_reads.setdefault(h, []).append((not used, k))
        elif flow.op_type[k] in UPDATES:
            roles.state_update[h] = k
    roles.state_read = {h: (min(found)[1], 0) for h, found in state_reads.items()}
    roles.state = sorted(roles.state_read, key=lambda h: roles.state_read[h][0])
    # gradients and the learning rate, from the updates
    last_assign: dict[str, list[int]] = {}
    for k in range(n):
        if flow.op_type[k] in UPDATES and flow.handle[k]:
            last_assign.setdefault(flow.handle[k] or "", []).append(k)
    lr_votes: list[Tensor] = []
    # a tied embedding's gradient is shaped like its whole table, not like the rows gathered
    grad_sig = roles.sig | whole_reads(flow, {h: t for h, t in roles.read.items()
                                              if flow.op_type[t[0]] in GATHER | {"ResourceGather"}},
                                       consumers, sig, lambda k: bool(traced[k, 0]))
    for k in range(n):
        h = flow.handle[k]
        if flow.op_type[k] not in UPDATES or h not in roles.read or flow.phase[k] == METRIC:
            continue
        if training_update(flow, k, {}):
            roles.update.setdefault(h, k)
        grad, lr, applied = walk(flow, k, grad_sig[h], sig, last_assign, traced)
        if grad is not None and applied == grad and flow.kind == GRAPH:  # clipped inside?
            applied = applied_after(flow, grad, k, sig_class(grad_sig[h]), sig, traced,
                                    consumers) or applied
        if grad is not None and h not in roles.grad:
            roles.grad[h] = grad
        if applied is not None and h not in roles.applied:
            roles.applied[h] = applied
        if lr is not None:
            lr_votes.append(lr)
            roles.lr_of.setdefault(h, lr)
    if lr_votes:
        roles.lr = max(set(lr_votes), key=lr_votes.count)
    for h, t in list(roles.applied.items()):  # an embedding's rows summed per id
        raw = roles.grad.get(h)
        if raw is not None and sig(t) != sig(raw) \
                and sig_class(sig(raw)) == sig_class(roles.sig[h]) \
                and flow.op_type[roles.read[h][0]] in GATHER | {"ResourceGather"}:
            del roles.applied[h]
            roles.summed.add(h)
    anchored_gradients(flow, roles, consumers, sig, traced)
    tape_gradients(flow, roles, consumers, sig, traced, best[1] if best is not None else None)
    unlinked_applied(flow, roles, consumers, sig, traced)
    if roles.lr is not None:
        roles.lr_chain = lr_chain(flow, roles.lr, trained, sig, traced)
    every = frozenset(roles.variables)
    if best is not None:
        roles.loss = (best[1], 0)
    # layer outputs: per set of variables and user line (`x = self.bn(x)`, a TF1 line of its
    # own: one layer each), the deepest layer-like tensor that leaves the group (what the next
    # layer or the loss consumes: a recurrent layer's stacked sequence, computed after its last
    # state, is not its output); the deepest of all where none is seen leaving
    limit = best[0] if best is not None else 1 << 30
    groups: Groups = {}
    candidates: dict[LayerKey, list[int]] = {}  # per group, every layer-like tensor of it
    ranks: dict[LayerKey, tuple[bool, bool, int, int]] = {}
    # what the step is fed: a tower applied to two inputs computes each layer twice
    data = step_data(flow, deps, every)
    pooled = pooling(flow, deps, sig)  # a pooling over positions (a masked mean)
    stage_of = stages(flow, deps, pooled)
    layer_key = layer_key_of(flow, deps, data.entry_of, stage_of)
    looped = loop_results(flow, deps, consumers)  # what leaves a recurrent layer's loop
    # ... or a recurrent cell written by hand: its states stacked
    gathers, stacked = assembled(flow, deps, consumers, lambda t: sig(t)[2])
    looped |= stacked
    leaves = leaving(flow, layer_key, consumers, looped)
    alive = feeding(flow, best[1]) if best is not None and flow.kind == GRAPH else None
    # the loss function's own ops on the model's output (a focal loss written by hand)
    in_loss = loss_side(flow, deps, best[1], every, data) if best is not None else set()
    # a loss written in the user's code with TensorFlow's loss functions: the ops inside
    # their name scope (`logistic_loss/…`, `softmax_cross_entropy_with_logits/Reshape`) are
    # the loss's per-example terms, not a layer's output (a graph's ops only: eager ops
    # have no names); asked last, of the few candidates
    products = data_products(flow, deps)  # (an adjacency times a layer's messages)
    for k in range(n):
        if (flow.phase[k] != FWD or not traced[k, 0] or not deps[k]
                or (flow.op_type[k] not in LAYER_OPS and k not in looped
                    and k not in pooled)
                or int(depth[k]) >= limit or (alive is not None and not alive[k])
                or k in in_loss or k in products
                or (k < len(flow.name) and _LOSS_SCOPE.search(flow.name[k]))):
            continue
        s = sig((k, 0))
        if s[1] < 2 or s[0] not in FLOATS:
            continue
        if before_bias(flow, k, deps, consumers) or (
                flow.op_type[k] == "Sub" and not subtraction_ends_layer(flow, k, deps, sig)):
            continue
        gkey = layer_key(k)
        candidates.setdefault(gkey, []).append(k)
        # a group's own computation before what only reshapes another group's output for
        # the next layer (a `dense` helper's tensordot reshape, after a residual line)
        rank = (not layout_of(flow, k, layer_key), leaves(k), int(depth[k]), k)
        if gkey not in groups or rank > ranks[gkey]:
            groups[gkey], ranks[gkey] = (leaves(k), int(depth[k]), k), rank
    groups = unit_outputs(flow, groups, layer_key, consumers)
    groups = forks(flow, groups, layer_key, consumers, candidates, lambda k: int(depth[k]),
                   sig)
    groups = inner_steps(flow, groups, deps, consumers)
    groups = parts_of(flow, groups, gathers, consumers)
    ordered = sorted(groups.items(), key=lambda x: x[1][1:])
    roles.layers = [(g, (k, 0)) for (g, *_), (_, _, k) in ordered]
    roles.layer_keys = [g for g, _ in ordered]
    roles.layer_stages = [stage_of[k] for _, (_, _, k) in ordered]
    roles.layer_sigs = [sig_class(sig((k, 0))) for _, (_, _, k) in ordered]
    inside = joined(flow, deps)
    memo: dict[int, str] = {}
    roles.layer_kinds = [kind_of(flow, k, layer_key, inside) for _, (_, _, k) in ordered]
    roles.layer_recipes = [recipe(flow, k, inside, memo) if kind == BLOCK else ""
                           for (_, (_, _, k)), kind in zip(ordered, roles.layer_kinds,
                                                           strict=True)]
    roles.layer_joins = [joins(flow, k, inside, consumers) for _, (_, _, k) in ordered]
    if roles.layers and roles.loss is not None:  # where the loss function starts
        roles.loss_entry = loss_entry(flow, roles.layers[-1][1][0], consumers, deps,
                                       roles.loss[0], to_loss)
        if roles.loss_entry is not None:
            roles.prediction = next((t for t in flow.inputs[roles.loss_entry]
                                     if t[0] >= 0 and deps[t[0]]), None)
    split_loss(flow, roles, deps, traced, data)
    return roles


# the name scopes of TensorFlow's loss functions (tf.nn and tf.compat.v1.losses)
_LOSS_SCOPE = re.compile(r"(^|/)(logistic_loss|softmax_cross_entropy_with_logits[^/]*|"
                         r"sigmoid_cross_entropy[^/]*|sparse_softmax_cross_entropy[^/]*|"
                         r"softmax_cross_entropy_loss|huber_loss|mean_squared_error|"
                         r"absolute_difference|log_loss|hinge_loss|cosine_distance_loss)"
                         r"(_\d+)?(/|$)")
