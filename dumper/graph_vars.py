"""Keep a TF1 graph's variables checkpointable while TensorFlow's dumping callback records it.

Why: in a TF1 graph (`tf.compat.v1.disable_eager_execution()`), TensorFlow's dumping op
callback records a tensor by *replacing* it: the op's caller gets the output of a
`DebugIdentityV2` (FULL_TENSOR) or of a `tfdbg_identity_N` Identity that depends on one (the
other modes) instead of the op's own output. A resource variable keeps the read it makes when
it is created (`VAR/Read/ReadVariableOp`) as its graph element, and `tf.compat.v1.train.Saver`
checks that this tensor is a `ReadVariableOp` and takes the variable's handle from its first
input. With the debug op's output in its place, `Saver()` fails with "Variable to save is not
a Variable", and an explicit `{name: variable}` list builds an `AssignVariableOp` on a float
tensor. TensorFlow's own `enable_dump_debug_info` has the same failure.

The fix: for those reads only, the tensor handed back is a second `ReadVariableOp` of the same
handle (`VAR/Read/ReadVariableOp/tfdbg_read`) with a control input on TensorFlow's
instrumented tensor. Whatever fetches the variable's graph element (`sess.run(var)`, the
Saver's save op) still runs the debug op, so the same trace is recorded under the same op
name; the Saver sees a genuine read of the variable. The extra read is made while the
callbacks run, so it is never instrumented nor written as a graph op, and its name is an
alias of the original read's (as TensorFlow does for its own debug tensors), so the graph a
consumer of it records is the one it recorded before.

A TF1 reference variable (`disable_v2_behavior()`, `use_resource=False`) fared worse: its
`VariableV2` output, the reference every `Assign`/`Apply*`/`Scatter*` needs, was replaced by a
plain tensor, and creating the variable failed ("'SymbolicTensor' object has no attribute
'assign'"). That output is handed back as it is; the one thing not recorded is its own trace
(TensorFlow's debug op for it is built but never runs); the variable's updates (`Assign`,
`ApplyAdam`, … outputs) and every consumer of its value are recorded as usual.
Everything else is untouched.
"""

from __future__ import annotations

import re
from typing import Any

# The name a resource variable's own read gets (`ops.name_scope("Read")` in
# resource_variable_ops); `read_value()` reads match too, which is harmless (a second read).
_VARIABLE_READ = re.compile(r"(?:^|/)Read/ReadVariableOp(?:_\d+)?$")


# The ops whose reference output is a TF1 reference variable itself (the `_variable` every
# `Assign`, `Apply*` and `Scatter*` takes as its reference input).
_REF_VARIABLES = frozenset({"VariableV2", "Variable", "TemporaryVariable"})


def _is_ref(tensor: Any) -> bool:
    """A reference-typed tensor (`float32_ref`: a TF1 reference variable, its assign)."""
    return bool(getattr(tensor.dtype, "_is_ref_dtype", False))


def _reread(original: Any, instrumented: Any) -> Any:
    """A fresh read of `original`'s variable that runs `instrumented`'s op first."""
    from tensorflow.python.framework import ops
    from tensorflow.python.ops import gen_resource_variable_ops

    handle = original.op.inputs[0]
    with ops.device(original.device), ops.control_dependencies([instrumented.op]):
        again = gen_resource_variable_ops.read_variable_op(
            handle, original.dtype, name="tfdbg_read")
    again.set_shape(original.shape)
    return again


def keep_variables_checkpointable(path: str) -> None:
    """Wrap the op callback TensorFlow's dumping into `path` installed (see the module doc).

    The wrapper takes the callback's place in this thread's op callbacks and as the state's
    `callback`, so TensorFlow's `disable_dump_debug_info` removes it as its own. A TensorFlow
    whose dumping state looks otherwise is left as it is (recording works as TensorFlow's).
    """
    from tensorflow.python.debug.lib import dumping_callback
    from tensorflow.python.framework import op_callbacks, ops

    state = getattr(dumping_callback._state, "dumping_callback", None)
    original_callback = getattr(state, "callback", None)
    if (state is None or getattr(state, "dump_root", None) != path or original_callback is None
            or not isinstance(getattr(state, "_tensor_aliases", None), dict)
            or getattr(original_callback, "__qualname__", "").startswith(
                keep_variables_checkpointable.__qualname__)):  # already ours
        return

    def callback(op_type: Any, inputs: Any, attrs: Any, outputs: Any,
                 op_name: Any = None, graph: Any = None) -> Any:
        result = original_callback(op_type, inputs, attrs, outputs,
                                   op_name=op_name, graph=graph)
        if (graph is None or result is None or len(result) != len(outputs)
                or ops.executing_eagerly_outside_functions()):
            return result
        if op_type in _REF_VARIABLES and _is_ref(outputs[0]):
            return [t if _is_ref(t) else r for t, r in zip(outputs, result, strict=True)]
        if (op_type != "ReadVariableOp" or not isinstance(op_name, str)
                or not _VARIABLE_READ.search(op_name) or result[0] is outputs[0]):
            return result
        again = _reread(outputs[0], result[0])
        state._tensor_aliases[again.name] = outputs[0].name
        return [again]

    try:
        op_callbacks.remove_op_callback(original_callback)
    except (KeyError, ValueError):  # not this thread's callback: leave TensorFlow's alone
        return
    state.callback = callback
    op_callbacks.add_op_callback(callback)
