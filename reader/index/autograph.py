"""Stack frames in AutoGraph's generated code, mapped back to the user's own function and line.

AutoGraph converts a Python function into `tf__<name>` in a generated file
(`/tmp/__autograph_generated_file*.py`). TensorFlow's own traceback mapping only works while
the converted call runs under its mapper; code converted ahead of time (`tf.autograph.
to_graph`) or run elsewhere leaves frames in the generated file, which is not the place to
change anything. The dumping callback snapshots every file on a stack, so the logdir holds
both the generated file and the user's file:
- the function: the generated `def tf__<name>` (its `ag__.FunctionScope('<name>', …)`)
  encloses the frame's line; the user's file is the snapshot with a `def <name>` whose
  body matches best;
- the line: the generated statement, with AutoGraph's wrappers taken off
  (`ag__.converted_call(f, (x,), None, fscope)` → `f(x)`, `ag__.ld(x)` → `x`,
  `retval_ =` → `return`, `ag__.if_stmt(cond, …)` → `if cond`), is compared by its words with
  each line of the user's function; the best match wins.
A frame that cannot be mapped is left as is; `frames.is_framework_file` never picks generated
code as the user frame.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import replace
from functools import lru_cache

from reader.index.frames import Frame, is_framework_file

_GENERATED = re.compile(r"(^|[/\\])__autograph_generated_file[^/\\]*\.py$")
_DEF = re.compile(r"^\s*def tf__(\w+)\(")
_SCOPE = re.compile(r"ag__\.FunctionScope\('(\w+)'")
_TOKEN = re.compile(r"[A-Za-z_]\w*|\d+(?:\.\d*)?|==|!=|<=|>=|\*\*|//|[-+*/%<>@=]")
# AutoGraph's own names: they say nothing about which user line a statement came from
_NOISE = frozenset({"ag__", "converted_call", "ld", "ldu", "None", "fscope", "retval_",
                    "do_return", "if_stmt", "for_stmt", "while_stmt", "get_state",
                    "set_state", "if_body", "else_body", "loop_body", "loop_test",
                    "nonlocal", "UndefinedReturnValue", "Undefined", "iterate_names",
                    "opts", "and_", "or_", "not_", "itr", "True", "False", "ret", "vars_"})

Lines = Callable[[str, str], "list[str] | None"]


def is_generated(path: str) -> bool:
    return bool(_GENERATED.search(path))


class AutographMapper:
    """Maps generated-code frames of one logdir; results are cached per (file, line)."""

    def __init__(self, lines: Lines, files: Callable[[], list[tuple[str, str]]]) -> None:
        self._lines = lines
        self._files = files
        self._cache: dict[tuple[str, str, int], Frame | None] = {}

    def map(self, frames: list[Frame]) -> list[Frame]:
        if not any(is_generated(f.file) for f in frames):
            return frames
        return [self.frame(f) if is_generated(f.file) else f for f in frames]

    def frame(self, f: Frame) -> Frame:
        key = (f.host, f.file, f.line)
        if key not in self._cache:
            self._cache[key] = self._map(f)
        hit = self._cache[key]
        return replace(hit, host=f.host) if hit is not None else f

    def _map(self, f: Frame) -> Frame | None:
        gen = self._lines(f.host, f.file)
        if not gen or not 1 <= f.line <= len(gen):
            return None
        name = _converted_name(gen, f.line)
        if name is None:
            return None
        words = _words(_unwrap(gen[f.line - 1]))
        best: tuple[float, str, int] | None = None
        for host, path in self._files():
            if is_generated(path) or is_framework_file(path):
                continue
            text = self._lines(host, path)
            if not text:
                continue
            for lo, hi in _defs(tuple(text), name):
                for n in range(lo, hi + 1):
                    score = _similarity(words, _words(text[n - 1]))
                    if best is None or score > best[0]:
                        best = (score, path, n)
        if best is None:
            return None
        _score, path, n = best
        return Frame(path, n, name, f.host, 0, True)


def _converted_name(gen: list[str], line: int) -> str | None:
    """The user's function name of the `tf__<name>` enclosing generated line `line`."""
    for i in range(line - 1, -1, -1):
        m = _DEF.match(gen[i])
        if m:
            for j in range(i, min(i + 3, len(gen))):
                s = _SCOPE.search(gen[j])
                if s:
                    return s.group(1)
            return m.group(1)
    return None


def _unwrap(code: str) -> str:
    """Take AutoGraph's wrappers off a generated statement (see the module docstring)."""
    code = re.sub(r"ag__\.ldu?\(([^()]*)\)", r"\1", code)
    code = re.sub(r"ag__\.converted_call\(([^,]+), \((.*?),?\), None, fscope\)", r"\1(\2)", code)
    code = re.sub(r"^\s*retval_ = ", "return ", code)
    code = re.sub(r"ag__\.if_stmt\((.*?), if_body.*", r"if \1", code)
    return code


def _words(code: str) -> list[str]:
    return [t for t in _TOKEN.findall(code.split("#", 1)[0]) if t not in _NOISE]


def _similarity(a: list[str], b: list[str]) -> float:
    if not a or not b:
        return 0.0
    common = sum(min(a.count(t), b.count(t)) for t in set(a))
    return common / max(len(a), len(b))


@lru_cache(maxsize=64)
def _defs(text: tuple[str, ...], name: str) -> list[tuple[int, int]]:
    """(first body line, last line) of every `def <name>` in a file."""
    try:
        tree = ast.parse("\n".join(text))
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            first = node.body[0].lineno if node.body else node.lineno
            out.append((first, node.end_lineno or first))
    return out
