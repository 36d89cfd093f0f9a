"""Stage 2, eager tape gradients by what the backward ops are anchored to.

In an eager step the tape's results reach the optimizer without a recorded link (Keras passes
them through an `Identity`, which tfdbg never records), so the gradient of each variable must
be found among the backward pass's tensors. Taking "the terminal tensors shaped like the
variable, last layer first" fails on batch normalization: beta's gradient is also the
gradient of `beta - mean * inv`, which the tape goes on to negate for the other operand, so
it is not terminal, and three same-shaped vectors (conv bias, gamma, beta) compete.

TensorFlow's gradient functions say which forward tensor a backward op is the gradient of, in
two ways every form shares:
- a gradient is reshaped to its input's shape: `Reshape(sum, Shape(x))` (or a kernel's
  `ShapeN` operand) is the gradient *of x*;
- the gradient of one operand of a product is computed *from the other operand*:
  `Mul(upstream, b)` for `a * b`, `MatMul(x, upstream)` for `x @ W`.
A variable's gradient is the last backward tensor shaped like it that is anchored to its read
(or what the read becomes through reshapes, casts, an add or the first operand of a
subtraction), through an aggregation (`AddN`) of several uses when there is one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from reader import EAGER
from tfdbg_tui.core.compare.contract.dataflow import BWD, FORWARD, Flow
from tfdbg_tui.core.compare.contract.tensors import Sig, Tensor, sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.roles import Roles

# forward ops that pass a variable's value on unchanged in meaning (its gradient is the
# gradient of their output, reshaped)
_PASS = frozenset({"Identity", "Reshape", "Squeeze", "ExpandDims", "Cast", "ReadVariableOp"})
# forward ops whose gradient for an operand is computed from the other operand
_PRODUCTS = frozenset({"Mul", "MatMul", "BatchMatMulV2", "BatchMatMulV3", "Conv2D",
                       "Conv1D", "Conv3D", "DepthwiseConv2dNative", "Einsum"})
# backward ops computing one operand's gradient from the other operand
_PRODUCT_GRADS = frozenset({"Mul", "MatMul", "BatchMatMulV2", "BatchMatMulV3",
                            "Conv2DBackpropFilter", "Conv2DBackpropFilterV2", "Einsum",
                            "DepthwiseConv2dNativeBackpropFilter"})
# backward ops that are the gradient of an activation's input: from its input (features)
# or from its output
_FEATURE_GRADS = frozenset({"ReluGrad", "Relu6Grad", "EluGrad", "SeluGrad", "LeakyReluGrad",
                            "SoftplusGrad"})
_OUTPUT_GRADS = frozenset({"TanhGrad", "SigmoidGrad"})
_ADDS = frozenset({"AddV2", "Add", "BiasAdd", "Sub"})
_AGGREGATE = frozenset({"AddN", "AddV2", "Add"})


def anchored_gradients(flow: Flow, roles: Roles, consumers: list[list[int]], sig: object,
                       traced: np.ndarray) -> None:
    """Fill `roles.grad` for the variables of an eager step still lacking one: the last
    backward tensor shaped like the variable and anchored to its reads (backprop finishes
    a variable's gradient last), through the sum of its uses' gradients where there is
    one. A variable with no anchored tensor is left to `tape_gradients`."""
    if flow.kind != EAGER:
        return
    missing = [h for h in roles.variables if h not in roles.grad and h in roles.read]
    if not missing:
        return
    sig_f = sig  # callable (node, slot) -> Sig
    taken = set(roles.grad.values())
    self_of, other_of = _anchors(flow)
    backward: dict[Sig, list[int]] = {}  # recorded backward tensors, by signature, in order
    for k in range(len(flow)):
        if flow.phase[k] == BWD and traced[k, 0]:
            backward.setdefault(sig_class(sig_f((k, 0))), []).append(k)  # type: ignore[operator]
    reads: dict[str, list[int]] = {}
    for k in range(len(flow)):
        h = flow.handle[k]
        if h is not None and flow.op_type[k] == "ReadVariableOp" and flow.phase[k] in FORWARD:
            reads.setdefault(h, []).append(k)
    for h in missing:
        want = sig_class(roles.sig[h])
        chain: set[int] = set()
        others: set[int] = set()
        for r in reads.get(h, [roles.read[h][0]]):  # a layer's read and a penalty's
            c, o = _uses(flow, r, consumers, sig_f, want)
            chain |= c
            others |= o
        cands = [k for k in backward.get(want, []) if (k, 0) not in taken
                 and (self_of[k] & chain or other_of[k] & others)]
        if not cands:
            continue
        got = _aggregate(flow, max(cands), consumers, sig_f, want, traced)
        roles.grad[h] = got
        taken.add(got)


def _anchors(flow: Flow) -> tuple[list[set[int]], list[set[int]]]:
    """Per backward node: the forward nodes it is shaped after (`Shape(x)` operands) and the
    forward nodes it takes as data (the other operand of a product)."""
    n = len(flow)
    self_of: list[set[int]] = [set() for _ in range(n)]
    other_of: list[set[int]] = [set() for _ in range(n)]
    for k in range(n):
        if flow.phase[k] != BWD:
            continue
        for j, slot in flow.inputs[k]:
            if j < 0:
                continue
            t = flow.op_type[j]
            if t == "Shape" and flow.inputs[j]:
                self_of[k].add(flow.inputs[j][0][0])
            elif t == "ShapeN" and slot < len(flow.inputs[j]):
                self_of[k].add(flow.inputs[j][slot][0])
            elif flow.phase[j] in FORWARD and flow.op_type[k] in _PRODUCT_GRADS:
                other_of[k].add(j)
        ins = flow.inputs[k]
        t = flow.op_type[k]
        if t in _FEATURE_GRADS and len(ins) > 1 and ins[1][0] >= 0:
            self_of[k].add(ins[1][0])  # ReluGrad(upstream, features): the features'
        elif t in _OUTPUT_GRADS and ins and ins[0][0] >= 0 and flow.inputs[ins[0][0]]:
            self_of[k].add(flow.inputs[ins[0][0]][0][0])  # TanhGrad(y, dy): tanh's input's
        elif t == "BiasAddGrad" and ins and ins[0][0] >= 0:
            # the bias operand of the BiasAdd whose output's gradient it reduces
            for f in self_of[ins[0][0]]:
                if flow.op_type[f] == "BiasAdd" and len(flow.inputs[f]) > 1:
                    self_of[k].add(flow.inputs[f][1][0])
    return self_of, other_of


def _uses(flow: Flow, read: int, consumers: list[list[int]], sig: object, want: Sig
          ) -> tuple[set[int], set[int]]:
    """What a variable's read becomes without changing meaning (its chain: reshapes, casts,
    an add of its own shape, the first operand of a subtraction) and the other operands of
    the products it enters."""
    chain: set[int] = {read}
    others: set[int] = set()
    todo = [read]
    while todo and len(chain) < 64:
        j = todo.pop()
        for c in consumers[j]:
            if flow.phase[c] not in FORWARD or c in chain:
                continue
            t = flow.op_type[c]
            ins = [i for i, _ in flow.inputs[c]]
            if t in _PASS:
                chain.add(c)
                todo.append(c)
            elif t in _PRODUCTS:
                others.update(i for i in ins if i >= 0 and i != j)
            elif (t in _ADDS and sig_class(sig((c, 0))) == want  # type: ignore[operator]
                  and (t != "Sub" or (ins and ins[0] == j))):
                chain.add(c)
                todo.append(c)
    return chain, others


def _aggregate(flow: Flow, k: int, consumers: list[list[int]], sig: object, want: Sig,
               traced: np.ndarray) -> Tensor:
    """The gradient a partial one is summed into (a variable read in several places)."""
    for _ in range(8):
        nxt = [c for c in consumers[k] if flow.phase[c] == BWD
               and flow.op_type[c] in _AGGREGATE and traced[c, 0]
               and sig_class(sig((c, 0))) == want]  # type: ignore[operator]
        if len(nxt) != 1:
            break
        k = nxt[0]
    return (k, 0)
