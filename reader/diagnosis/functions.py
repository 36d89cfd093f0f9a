"""Which recorded graph an eager tf.function call ran, and how forward and backward relate.

Why this is needed: TensorFlow's dumping callback sets an execution's `graph_id` only for
functions its function callback saw. When a tf.function is called under `tf.GradientTape`,
TensorFlow runs rewritten functions instead — `__forward_<name>_<uid>` (the graph plus extra
outputs the gradient needs) and `__inference___backward_<name>_<uid>_<uid>` — and their
execution records carry no graph id. Their traces still carry the original graph's id (the
forward function reuses the graph's instrumented ops), and the backward graph is recorded
as `__backward_<name>_<uid>` (its ops and stacks, but TensorFlow never traces it).

So a call is matched to its graph by name: the function's base name is the graph's name. Two
graphs may share a name (a function retraced for a new input signature); then the graph whose
traces ran during the call wins, else the most recently recorded one.

The backward function's inputs are one gradient per output of the forward function's own,
then the forward function's extra outputs; its Placeholders, in creation order, follow the
same order and are named `<gradient op>/<forward op>` after the forward tensor they capture
(`gradients/Log_grad/Reciprocal/probs` holds the forward `probs`). That is how an extra
output of a forward call is named, and how a backward function is tied to its forward graph.
"""

from __future__ import annotations

import re

from reader.index.graphs import Graph, Op

_INFERENCE = "__inference_"
_FORWARD = "__forward_"
_BACKWARD = "__backward_"
_UID = re.compile(r"_\d+$")


def called_graph_name(op_type: str) -> str | None:
    """The recorded graph name of the function an execution's op type names, or None.

    `__inference_f_12` → `f`; `__forward_f_12` → `f`;
    `__inference___backward_f_7_13` → `__backward_f_7`; anything else (a primitive op) → None.
    """
    if op_type.startswith(_FORWARD):
        base = _UID.sub("", op_type[len(_FORWARD):])
        return base or None
    if op_type.startswith(_INFERENCE):
        base = _UID.sub("", op_type[len(_INFERENCE):])
        return base or None
    if op_type.startswith(_BACKWARD):
        return op_type
    return None


def function_label(op_type: str) -> str:
    """The name a user gave the tf.function an execution's op type calls, for people to read.

    Why: TensorFlow records a call as its mangled graph name (`__inference_train_step_1234`),
    the same prefix on every row, so a list cut to fit showed "__inference_…" for every call.
    `__inference_train_step_12` → `train_step`; `__forward_f_12` → `f (forward)`;
    `__inference___backward_f_7_13` → `f (backward)`; a primitive op (`MatMul`) unchanged.
    The full name stays in the JSON and the inspector (it tells two traces of one apart).
    """
    base = called_graph_name(op_type)
    if base is None:
        return op_type
    if base.startswith(_BACKWARD):
        return f"{_UID.sub('', base[len(_BACKWARD):]) or base} (backward)"
    if op_type.startswith(_FORWARD):
        return f"{base} (forward)"
    return base


def is_function_call(op_type: str) -> bool:
    """True when an execution's op type names a tf.function (not a primitive op)."""
    return op_type.startswith((_FORWARD, _INFERENCE, _BACKWARD))


def forward_name_of_backward(backward: Graph) -> str | None:
    """`__backward_f_7` → `f` (the forward graph's name); None for other graphs."""
    if not backward.name.startswith(_BACKWARD):
        return None
    return _UID.sub("", backward.name[len(_BACKWARD):]) or None


def placeholders_in_order(g: Graph) -> list[Op]:
    """A graph's Placeholders in creation order (its inputs, in input order)."""
    return sorted((op for op in g.ops.values() if op.op_type == "Placeholder"),
                  key=lambda op: op.output_tensor_ids[0] if op.output_tensor_ids else 1 << 62)


def captured_name(backward: Graph, placeholder: Op) -> str | None:
    """The forward op a backward Placeholder captures: its name minus the consuming op's.

    `gradients/Log_grad/Reciprocal/probs` in a graph holding `gradients/Log_grad/Reciprocal`
    → `probs`. The longest op-name prefix wins, so a forward name holding slashes survives.
    """
    name = placeholder.op_name
    cut = name.rfind("/")
    while cut > 0:
        if name[:cut] in backward.ops and name[:cut] != name:
            return name[cut + 1:] or None
        cut = name.rfind("/", 0, cut)
    return None


def backward_graphs_of(graphs: list[Graph], forward: Graph) -> list[Graph]:
    """Backward graphs whose captured forward tensors are all ops of `forward`."""
    out = []
    for g in graphs:
        if forward_name_of_backward(g) != forward.name:
            continue
        names = [captured_name(g, ph) for ph in placeholders_in_order(g)]
        known = [n for n in names if n is not None]
        if known and all(n in forward.ops for n in known):
            out.append(g)
    return out


def forward_of_backward(graphs: list[Graph], backward: Graph) -> Graph | None:
    """The forward graph a backward graph differentiates (its captures are that graph's ops)."""
    name = forward_name_of_backward(backward)
    if name is None:
        return None
    names = [n for n in (captured_name(backward, ph) for ph in placeholders_in_order(backward))
             if n is not None]
    cands = [g for g in graphs if g.name == name and all(n in g.ops for n in names)]
    return cands[-1] if cands else None
