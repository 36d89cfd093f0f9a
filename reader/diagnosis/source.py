"""Which caller tensor feeds an argument of a tf.function called inside another tf.function.

Why source code: TensorFlow's dumping callback never records the call op of a nested
tf.function (`StatefulPartitionedCall` is in its skip list and is created without op
callbacks), so the logdir has no edge from the caller's tensor to the callee's Placeholder.
What it does have: the callee's Placeholders were created while Python was executing the
call expression (their creation stack passes through the call line), the caller's ops carry
their own creation stacks, and `.source_files` holds the program text. So we parse the call
with `ast`, find the argument expression for the Placeholder, find the lines where that value
was computed (the argument itself, or the last assignment to the name it uses), and pick the
caller op created on those lines most recently before the callee was traced.
It is a heuristic; the path shown to the user names every hop so it can be checked by eye.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import lru_cache

from reader.index.frames import Frame
from reader.index.graphs import Graph, Op
from reader.index.logdir import DebugLogdir


@dataclass(frozen=True)
class Origin:
    """Where an argument value came from in the caller: an op name or a caller parameter."""

    op_name: str
    lines: tuple[int, int]  # the source lines that computed it (inclusive)
    is_parameter: bool


_SUFFIX = re.compile(r"_\d+$")


def call_frame_in(frames: list[Frame], caller: str) -> Frame | None:
    """The frame executing the call inside the caller's Python function, innermost first.

    The caller graph is named after its Python function (AutoGraph runs it as `tf__name`),
    so that function's innermost frame is the one on the call line — even when the call goes
    through wrappers (Keras calls its train step through one), where the innermost user
    frame would be the `fit` line instead.
    """
    if not caller:
        return None
    for f in reversed(frames):
        if f.resolved and f.function in (caller, f"tf__{caller}"):
            return f
    return None


def flat_position(placeholders: list[Op], ph: Op) -> tuple[int, int]:
    """(argument position, element) of a callee Placeholder.

    A tuple argument `data` becomes Placeholders `data`, `data_1`, … (one per element), so
    Placeholders are grouped by name without the `_N` suffix, in order.
    """
    position, element, last = -1, 0, None
    for p in placeholders:
        base = _SUFFIX.sub("", p.op_name)
        if base != last:
            position, element, last = position + 1, 0, base
        else:
            element += 1
        if p.op_name == ph.op_name:
            return position, element
    return -1, 0


# Larger program texts are not parsed: a real program is far smaller, and a crafted one must
# not make the diagnosis spend seconds and hundreds of megabytes in `ast`.
MAX_PARSED_CHARS = 4 << 20


@lru_cache(maxsize=32)
def _parse(text: str) -> ast.Module | str:
    """The module's syntax tree, or why it was not analysed (in words, for the explanation).

    CPython's parser raises RecursionError (a few thousand chained `+`) or MemoryError (a
    long run of unary `-`) on text it could otherwise read: from a logdir, that is data, not
    a bug of ours, so it is said and the walk goes on without the call site.
    """
    if len(text) > MAX_PARSED_CHARS:
        return f"{len(text):,} characters; at most {MAX_PARSED_CHARS:,} are parsed"
    try:
        return ast.parse(text)
    except (SyntaxError, ValueError):
        return "it is not valid Python"
    except RecursionError:
        return "an expression is nested too deeply for Python's parser"
    except MemoryError:
        return "Python's parser ran out of memory on it"


_Function = ast.FunctionDef | ast.AsyncFunctionDef


@lru_cache(maxsize=32)
def _function_spans(tree: ast.AST) -> tuple[tuple[int, int, _Function], ...]:
    """Every function's (first line, last line, node), walked once per syntax tree: the
    incidents ask for the enclosing function of many call sites in one file (~900 questions
    on a small Keras run), and walking every node each time was most of `report`'s time."""
    return tuple((node.lineno, node.end_lineno or node.lineno, node) for node in ast.walk(tree)
                 if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef))


def _enclosing_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost function (the last to start) whose lines hold `line`."""
    best = None
    for first, last, node in _function_spans(tree):
        if first <= line <= last and (best is None or first > best.lineno):
            best = node
    return best


def _callee_name(call: ast.Call) -> str:
    f = call.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _find_call(func: ast.AST, line: int, callee: str) -> ast.Call | None:
    calls = [n for n in ast.walk(func) if isinstance(n, ast.Call)
             and n.lineno <= line <= (n.end_lineno or n.lineno)]
    named = [c for c in calls if _callee_name(c) == callee]
    pool = named or calls
    # the innermost call on that line is the one being executed
    return max(pool, key=lambda c: (c.lineno, c.col_offset)) if pool else None


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    for kw in call.keywords:
        if kw.arg == name:
            return kw.value
    positional = list(call.args)
    if any(isinstance(a, ast.Starred) for a in positional[: position + 1]):
        return None
    return positional[position] if position < len(positional) else None


def _last_assignment(func: ast.AST, name: str, before: int) -> tuple[int, int] | None:
    """Lines of the last statement before `before` that binds `name`."""
    best: tuple[int, int] | None = None
    for node in ast.walk(func):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.NamedExpr):
            targets = [node.target]
        elif isinstance(node, ast.For):
            targets = [node.target]
        if not targets or not isinstance(node, ast.stmt | ast.expr) or node.lineno >= before:
            continue
        bound = {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
        if name in bound and (best is None or node.lineno > best[0]):
            best = (node.lineno, node.end_lineno or node.lineno)
    return best


def call_site_origin(L: DebugLogdir, callee: Graph, position: int, placeholder: Op,
                     call_frame: Frame) -> Origin | str | None:
    """The caller-side source of argument `position` of a nested tf.function call.

    None when the call site does not say; a string when the source file could not be
    analysed at all ("source not analysed (…)"), for the explanation to say what is unknown.
    """
    lines = L.source_lines(call_frame.host, call_frame.file)
    if not lines:
        return None
    size = sum(len(line) + 1 for line in lines)
    tree = (_parse("\n".join(lines)) if size <= MAX_PARSED_CHARS
            else f"{size:,} characters; at most {MAX_PARSED_CHARS:,} are parsed")
    if isinstance(tree, str):
        name = call_frame.file.rsplit("/", 1)[-1]
        return f"source not analysed ({name}: {tree})"
    func = _enclosing_function(tree, call_frame.line)
    if func is None:
        return None
    call = _find_call(func, call_frame.line, callee.name)
    if call is None:
        return None
    arg = _argument(call, position, _SUFFIX.sub("", placeholder.op_name))
    if arg is None:
        return None
    if isinstance(arg, ast.Name):
        params = {a.arg for a in (*func.args.posonlyargs, *func.args.args,
                                  *func.args.kwonlyargs)}
        span = _last_assignment(func, arg.id, call.lineno)
        if span is None and arg.id in params:
            return Origin(arg.id, (func.lineno, func.lineno), True)
        if span is None:
            return None
        return Origin(arg.id, span, False)
    return Origin("", (arg.lineno, arg.end_lineno or arg.lineno), False)


def caller_op_on_lines(L: DebugLogdir, caller: Graph, file: str, function: str,
                       lines: tuple[int, int], before_tid: int) -> Op | None:
    """The caller op created on those lines (in that function) most recently before a tensor id."""
    best: Op | None = None
    best_tid = -1
    for op in caller.ops.values():
        if not op.output_tensor_ids or op.output_tensor_ids[0] >= before_tid:
            continue
        tid = op.output_tensor_ids[0]
        if tid <= best_tid:
            continue
        for f in L.op_stack(op):
            if f.file == file and f.function == function and lines[0] <= f.line <= lines[1]:
                best, best_tid = op, tid
                break
    return best


def argument_lines(L: DebugLogdir, frame: Frame, keyword: str,
                   position: int) -> tuple[int, int] | None:
    """The lines that computed an argument of the call `frame` executes (by `keyword`, else
    at `position`): the argument's own when written in the call, the last assignment before
    the call to the name passed. None when the source does not say (not recorded, not
    parsed, no such argument, anything but a name or an expression written there)."""
    lines = L.source_lines(frame.host, frame.file)
    if not lines or sum(len(line) + 1 for line in lines) > MAX_PARSED_CHARS:
        return None
    tree = _parse("\n".join(lines))
    if isinstance(tree, str):
        return None
    func: ast.AST = _enclosing_function(tree, frame.line) or tree
    call = _find_call(func, frame.line, "")
    arg = _argument(call, position, keyword) if call is not None else None
    if arg is None or call is None:
        return None
    if isinstance(arg, ast.Name):
        return _last_assignment(func, arg.id, call.lineno)
    if isinstance(arg, ast.Call | ast.Constant | ast.BinOp):
        return (arg.lineno, arg.end_lineno or arg.lineno)
    return None


def parsed_module(L: DebugLogdir, frame: Frame) -> ast.Module | None:
    """The syntax tree of `frame`'s file from the logdir's copy; None when not recorded or
    not analysed (too large, not valid Python: see `_parse`)."""
    lines = L.source_lines(frame.host, frame.file)
    if not lines or sum(len(line) + 1 for line in lines) > MAX_PARSED_CHARS:
        return None
    tree = _parse("\n".join(lines))
    return None if isinstance(tree, str) else tree


def in_loop(L: DebugLogdir, frame: Frame) -> bool | None:
    """Whether `frame`'s line sits in a `for`/`while` of its own function (not of one
    defined inside it): an eager training written as a loop in `main`, not as calls of a
    `train_step`. None when the source does not say (not recorded, not analysed)."""
    tree = parsed_module(L, frame)
    if tree is None:
        return None
    scope: ast.AST = (_enclosing_function(tree, frame.line) if frame.function != "<module>"
                      else None) or tree
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda
                      | ast.ClassDef):
            continue
        if isinstance(node, ast.For | ast.AsyncFor | ast.While) and \
                node.lineno <= frame.line <= (node.end_lineno or node.lineno):
            return True
        todo.extend(ast.iter_child_nodes(node))
    return False
