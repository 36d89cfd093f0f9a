"""Where the user's own code computed a learning rate that made the training diverge: the
function a Keras `LearningRateScheduler` callback calls, a `LearningRateSchedule`
subclass's `__call__`, a helper whose value the loop assigns to the rate.

Why: the rate reaches TensorFlow on a line that holds nothing to change. The callback's
eager assignment has `model.fit(…)` as its only user frame (Keras' callback code runs it);
a helper in plain Python runs no op, so the assignment `opt.learning_rate = rate_at(step)`
is the only line recorded; a schedule class's ops are made under `opt.apply_gradients`.
The mistake is in the schedule's formula, and the record says enough to find it:
- a write made from Keras' callback (`learning_rate_scheduler.py`, tf_keras'
  `LearningRateScheduler.on_epoch_begin`): the schedule is the function given to
  `LearningRateScheduler(…)` in the user's file (`source.function_line`);
- a write whose user line assigns (`=`, `.assign(…)`) a call of a function the same file
  defines: that function;
- a rate op made by user code that the optimizer's code called (an optimizer frame, then a
  user frame, innermost last, no gradient code between): that user frame, the op's own
  line (a schedule class's `__call__`, a callable given as `learning_rate`).
Inside a function, the line to change is its one `return` that does not hand back a
parameter unchanged (the branch that keeps the rate is not the mistake); with none or
several, the `def` line; a lambda's line is named by the def that holds it, as Source Code
names it. The user's code is only read, never run.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from reader.diagnosis.places import Place
from reader.diagnosis.source import parsed_module
from reader.diagnosis.walk import Walker
from reader.index.frames import Frame

CALLBACK_FILES = ("learning_rate_scheduler.py",)  # Keras 3's callback
OPTIMIZER_DIRS = ("/optimizers/", "/optimizer_v2/", "/python/training/")
SCHEDULER_CALLS = ("LearningRateScheduler",)
# a user frame under these is a custom gradient's code (TF1's `minimize` differentiates
# inside the optimizer), not a rate's
GRADIENT_FILES = ("gradients_util.py", "backprop.py", "custom_gradient.py", "tape.py")


@dataclass(frozen=True)
class RateCode:
    """The line of the user's code that computed the rate, and what to say of it."""

    place: Place
    said: str


def _short(file: str) -> str:
    return file.replace("\\", "/").rsplit("/", 1)[-1]


def _from_callback(frames: list[Frame]) -> bool:
    for f in frames:
        path = f.file.replace("\\", "/")
        if path.endswith(CALLBACK_FILES) or (
                f.function == "on_epoch_begin" and path.endswith("/callbacks.py")):
            return True
    return False


def _functions(tree: ast.Module) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]


def _returns(func: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Return]:
    """`func`'s own returns (not those of functions or lambdas defined inside it)."""
    out: list[ast.Return] = []
    todo: list[ast.AST] = list(func.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Return):
            out.append(node)
        elif not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                            | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))
    return sorted(out, key=lambda r: r.lineno)


def line_to_change(func: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """The one `return` that computes something (see the module docstring), else `def`."""
    params = {a.arg for a in (*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs)}
    computed = [r for r in _returns(func) if r.value is not None
                and not (isinstance(r.value, ast.Name) and r.value.id in params)]
    return computed[0].lineno if len(computed) == 1 else func.lineno


def _resolve(tree: ast.Module, expr: ast.expr) -> tuple[str, int] | None:
    """(name, line to change) of the function `expr` names or writes (a lambda)."""
    if isinstance(expr, ast.Lambda):
        return "<lambda>", expr.lineno
    if not isinstance(expr, ast.Name):
        return None
    defs = [f for f in _functions(tree) if f.name == expr.id]
    if len(defs) == 1:
        return defs[0].name, line_to_change(defs[0])
    lambdas = [n.value for n in ast.walk(tree) if isinstance(n, ast.Assign)
               and isinstance(n.value, ast.Lambda)
               and any(isinstance(t, ast.Name) and t.id == expr.id for t in n.targets)]
    return (expr.id, lambdas[0].lineno) if len(lambdas) == 1 else None


def _callee(call: ast.Call) -> str:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""


def scheduler_function(tree: ast.Module) -> tuple[str, int] | None:
    """The function given to the file's one `LearningRateScheduler(…)`."""
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and _callee(n) in SCHEDULER_CALLS]
    if len(calls) != 1:
        return None
    call = calls[0]
    arg = next((k.value for k in call.keywords if k.arg == "schedule"),
               call.args[0] if call.args else None)
    return _resolve(tree, arg) if arg is not None else None


def assigned_function(tree: ast.Module, line: int) -> tuple[str, int] | None:
    """The function whose call the statement on `line` assigns (`x = f(…)`,
    `v.assign(f(…))`)."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt) or not node.lineno <= line <= (
                node.end_lineno or node.lineno):
            continue
        value: ast.expr | None = None
        if isinstance(node, ast.Assign | ast.AnnAssign):
            value = node.value
        elif isinstance(node, ast.Expr) and isinstance(node.value, ast.Call) \
                and _callee(node.value) == "assign" and node.value.args:
            value = node.value.args[0]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
            found = _resolve(tree, value.func)
            if found is not None:
                return found
    return None


def _holder(tree: ast.Module, line: int) -> str:
    """The def that holds `line` (the innermost), else `<module>`: a lambda's line is named
    by it, as Source Code and a traceback's caller frame name it."""
    spans = [f for f in _functions(tree) if f.lineno <= line <= (f.end_lineno or f.lineno)]
    return max(spans, key=lambda f: f.lineno).name if spans else "<module>"


def _at(walker: Walker, place: Place, frame: Frame, tree: ast.Module, function: str,
        line: int) -> Place:
    lines = walker.L.source_lines(frame.host, frame.file) or []
    code = lines[line - 1] if 0 < line <= len(lines) else None
    if function == "<lambda>":
        function = _holder(tree, line)
    return replace(place, user_frame=replace(frame, line=line, col=0, function=function),
                   code=code)


def _named(fn: str) -> str:
    return "a lambda" if fn == "<lambda>" else fn


def written_rate(walker: Walker, place: Place) -> RateCode | None:
    """For the place of the write of the learning rate's variable: the user's function that
    computed the value, when the source shows one (see the module docstring)."""
    uf = place.user_frame
    if uf is None:
        return None
    tree = parsed_module(walker.L, uf)
    if tree is None:
        return None
    name = _short(uf.file)
    if _from_callback(place.frames):
        found = scheduler_function(tree)
        if found is not None:
            fn, line = found
            return RateCode(_at(walker, place, uf, tree, fn, line),
                            f"set every epoch by the LearningRateScheduler callback from "
                            f"{_named(fn)} at {name}:{line}, called by {name}:{uf.line}")
        return None
    found = assigned_function(tree, uf.line)
    if found is None:
        return None
    fn, line = found
    return RateCode(_at(walker, place, uf, tree, fn, line),
                    f"computed by {_named(fn)} at {name}:{line} and assigned at "
                    f"{name}:{uf.line}")


def scheduled_by_user(walker: Walker, place: Place) -> RateCode | None:
    """For an op of the rate that is no variable's read: the user's code the optimizer
    called to compute it (a schedule class's `__call__`), when its stack shows one."""
    frames = place.frames
    opt = [i for i, f in enumerate(frames) if f.is_framework
           and any(d in f.file.replace("\\", "/") for d in OPTIMIZER_DIRS)]
    if not opt:
        return None
    below = frames[opt[-1] + 1:]
    inner = [f for f in below if f.resolved and not f.is_framework]
    if not inner or any(f.file.replace("\\", "/").endswith(GRADIENT_FILES) for f in below):
        return None
    uf = inner[-1]
    name = _short(uf.file)
    at = replace(place, user_frame=uf, code=walker.L.code_line(uf))
    return RateCode(at, f"computed by {uf.function} at {name}:{uf.line}, which the "
                        "optimizer calls for its rate every step")
