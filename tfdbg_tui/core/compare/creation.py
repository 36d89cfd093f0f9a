"""The line that CREATES a learning-rate schedule or an optimizer, found from where it runs.

A schedule or an optimizer object creates no op where it is constructed: its ops are made
later, inside `apply_gradients` or `fit`, so no recorded stack names the line the migrating
user must change (`PolynomialDecay(..., end_learning_rate=0.0)`, `SGD(..., momentum=0.9)`).
What the stack does show is the object's own method near its innermost frames (a schedule's
`__call__`, an optimizer's `update_step`). From the logdir's captured copy of that framework
file we read which class the method belongs to, then look for a construction `Class(` in the
user's captured source files (dotted aliases such as `keras.optimizers.SGD(` and
`import … as Name` included). Only a construction found on exactly one line is reported; zero
or several matches leave the applying line, and say that the creating line is unknown.
If a framework function between the user's line and the method constructs the class itself
(TF1's `polynomial_decay`), the user's line already is the creating one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reader import DebugLogdir
from reader.index.frames import Frame, is_framework_file, user_frame_index

# only schedule and optimizer code: a layer's or a variable's class found the same way would
# move a layer output's line from where the layer is applied to where it is built
_OWNER_PATH = re.compile(r"[/\\](optimizers|optimizer_v2|training|schedules)[/\\]")
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
_CLASS = re.compile(r"^(\s*)class\s+(\w+)")
_MAX_SCAN = 5000  # lines scanned upward for the enclosing def/class
_MAX_FILES = 200  # user files searched for a construction
# Lines longer than this are not searched: code that constructs an object is short, and a
# forged source file's megabyte line would cost the regexes quadratic time.
_MAX_LINE = 2000
_MAX_SOURCE = 4 << 20  # characters of one file tokenized


@dataclass(frozen=True)
class Creation:
    """Where the schedule/optimizer class `owner` (run at the applying line) was created.
    `frame` is None when no unique construction was found; `why` then says what was seen."""

    owner: str
    frame: Frame | None
    code: str = ""
    why: str = ""


def _enclosing(lines: list[str], line: int) -> tuple[str, str] | None:
    """(class, method) whose method's body holds 1-based `line`, or None if the function there
    is not a method of a class."""
    i = min(line, len(lines)) - 1
    stop = max(-1, i - _MAX_SCAN)
    def_indent = None
    method = ""
    while i > stop:
        text = lines[i]
        if text.strip() and not text.lstrip().startswith(("#", "@")):
            indent = len(text) - len(text.lstrip())
            if def_indent is None:
                m = _DEF.match(text)
                if m:
                    def_indent, method = len(m.group(1)), m.group(2)
            elif indent < def_indent:
                m = _CLASS.match(text)
                return (m.group(2), method) if m else None
        i -= 1
    return None


def _body(lines: list[str], line: int) -> str:
    """The text of the function holding `line`, from its def down to `line`."""
    i = min(line, len(lines)) - 1
    end = i
    while i > max(-1, end - _MAX_SCAN):
        if _DEF.match(lines[i]):
            break
        i -= 1
    return "\n".join(lines[max(i, 0):end + 1])


def _construction(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){re.escape(name)}\s*\(")


def _aliases(files: list[list[str]], owner: str) -> set[str]:
    names = {owner}
    alias = re.compile(rf"\bimport\b.*\b{re.escape(owner)}\s+as\s+(\w+)")
    for lines in files:
        for text in lines:
            if len(text) > _MAX_LINE:
                continue
            m = alias.search(text)
            if m:
                names.add(m.group(1))
    return names


def _user_files(logdir: DebugLogdir) -> list[tuple[str, str, list[str]]]:
    out = []
    for host, path in logdir.source_files()[:10_000]:
        if is_framework_file(path):
            continue
        lines = logdir.source_lines(host, path)
        if lines:
            out.append((host, path, lines))
        if len(out) >= _MAX_FILES:
            break
    return out


def _function_at(lines: list[str], line: int) -> str:
    for i in range(line - 1, max(-1, line - 1 - _MAX_SCAN), -1):
        m = _DEF.match(lines[i])
        if m and len(m.group(1)) < len(lines[line - 1]) - len(lines[line - 1].lstrip()):
            return m.group(2)
    return "<module>"


def find_creation(logdir: DebugLogdir, frames: list[Frame]) -> Creation | None:
    """The creation of the schedule/optimizer whose method made the op of `frames` (outermost
    first); None when no such method is on the stack (nothing to say)."""
    user = user_frame_index(frames)
    if user is None:
        return None
    inner = frames[user + 1:]
    for k in range(len(inner) - 1, -1, -1):
        f = inner[k]
        if not f.resolved or not _OWNER_PATH.search(f.file):
            continue
        lines = logdir.source_lines(f.host, f.file)
        if not lines or not 1 <= f.line <= len(lines):
            continue
        found = _enclosing(lines, f.line)
        if found is None or found[1] != f.function:
            continue
        owner = found[0]
        # made inside the call the user's line makes (TF1's polynomial_decay): that line
        for outer in inner[:k]:
            olines = logdir.source_lines(outer.host, outer.file) if outer.resolved else None
            if olines and 1 <= outer.line <= len(olines) and \
                    _construction(owner).search(_body(olines, outer.line)):
                uf = frames[user]
                return Creation(owner, uf, (logdir.code_line(uf) or "").strip())
        return _search(logdir, owner)
    return None


def _calls(lines: list[str], names: set[str]) -> list[int]:
    """1-based lines where one of `names` is called (`Name(`, `mod.Name(`), read from the
    source's tokens: a name in a string, a docstring or a comment is no construction. A
    file Python cannot tokenize falls back to its lines, comments cut."""
    import io
    import tokenize

    text = "\n".join(t for t in lines if len(t) <= _MAX_LINE) + "\n"
    if len(text) > _MAX_SOURCE:
        return []
    found: list[int] = []
    try:
        prev: tokenize.TokenInfo | None = None
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE):
                continue
            if (tok.type == tokenize.OP and tok.string == "(" and prev is not None
                    and prev.type == tokenize.NAME and prev.string in names):
                found.append(prev.start[0])
            prev = tok
    except (tokenize.TokenError, SyntaxError, IndentationError):
        patterns = [_construction(n) for n in names]
        found = [n for n, t in enumerate(lines, 1) if len(t) <= _MAX_LINE
                 and any(p.search(t.split("#", 1)[0]) for p in patterns)]
    # lines were dropped above only when too long: map token lines back to the file's
    if any(len(t) > _MAX_LINE for t in lines):
        kept = [n for n, t in enumerate(lines, 1) if len(t) <= _MAX_LINE]
        found = [kept[n - 1] for n in found if 0 < n <= len(kept)]
    return sorted(set(found))


def _search(logdir: DebugLogdir, owner: str) -> Creation:
    files = _user_files(logdir)
    names = _aliases([f[2] for f in files], owner)
    hits: list[tuple[str, str, int, str]] = []
    for host, path, lines in files:
        for number in _calls(lines, names):
            text = lines[number - 1]
            if text.lstrip().startswith(("class ", "def ")):
                continue
            hits.append((host, path, number, text))
    if len(hits) != 1:
        seen = "on no line" if not hits else f"on {len(hits)} lines"
        return Creation(owner, None, why=f"the line creating the {owner} is unknown: "
                                         f"`{owner}(` is {seen} of the captured sources")
    host, path, number, text = hits[0]
    lines = logdir.source_lines(host, path) or []
    frame = Frame(path, number, _function_at(lines, number), host)
    return Creation(owner, frame, text.strip())


__all__ = ["Creation", "find_creation"]
