"""The line that CREATES a learning-rate schedule or an optimizer, found from where it runs.

A schedule or an optimizer object creates no op where it is constructed: its ops are made
later, inside `apply_gradients` or `fit`, so no recorded stack names the line the migrating
user must change (`PolynomialDecay(..., end_learning_rate=0.0)`, `SGD(..., momentum=0.9)`).
What the stack does show is the object's own method near its innermost frames (a schedule's
`__call__`, an optimizer's `update_step`). From the logdir's captured copy of that framework
file we read which class the method belongs to, then look for a construction `Class(` in the
user's captured source files (dotted aliases such as `keras.optimizers.SGD(` and
`import … as Name` included). A construction found on exactly one line is reported; one found on
several lines (one per branch of an if/elif/else) is the one whose statement a recorded stack
frame is at — the branch that ran, where the constructor made ops or eager executions. Zero
matches, or several none or more than one of which ran, leave the applying line, and say that
the creating line is unknown (naming the candidate lines).
If a framework function between the user's line and the method constructs the class itself
(TF1's `polynomial_decay`), the user's line already is the creating one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reader import DebugLogdir
from reader.index.frames import Frame, is_framework_file, user_frame_index
from tfdbg_tui.core.compare.source_calls import (  # statement_lines: for `lines`
    MAX_LINE,
    Hit,
    calls,
    candidates,
    construction,
    ran_of,
    statement_lines,
    which_ran,
)

# only schedule and optimizer code: a layer's or a variable's class found the same way would
# move a layer output's line from where the layer is applied to where it is built
_OWNER_PATH = re.compile(r"[/\\](optimizers|optimizer_v2|training|schedules|losses)[/\\]")
# a loss is often a function wrapped by a class of another name (Keras' `categorical_crossentropy`
# run by `LossFunctionWrapper`): there the user constructs the function's CamelCase class
_LOSS_PATH = re.compile(r"[/\\]losses[/\\]")
_DEF = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
_CLASS = re.compile(r"^(\s*)class\s+(\w+)")
_MAX_SCAN = 5000  # lines scanned upward for the enclosing def/class
_MAX_FILES = 200  # user files searched for a construction


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


def _aliases(files: list[list[str]], owner: str) -> set[str]:
    names = {owner}
    alias = re.compile(rf"\bimport\b.*\b{re.escape(owner)}\s+as\s+(\w+)")
    for lines in files:
        for text in lines:
            if len(text) > MAX_LINE:
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
            if _LOSS_PATH.search(f.file) and not f.function.startswith("_"):
                camel = "".join(w[:1].upper() + w[1:] for w in f.function.split("_"))
                hit = _search(logdir, camel)
                if hit.frame is not None:
                    return hit
                named = _compiled(logdir, frames[user], camel)
                if named is not None:
                    return named
            continue
        owner = found[0]
        # made inside the call the user's line makes (TF1's polynomial_decay): that line
        for outer in inner[:k]:
            olines = logdir.source_lines(outer.host, outer.file) if outer.resolved else None
            if olines and 1 <= outer.line <= len(olines) and \
                    construction(owner).search(_body(olines, outer.line)):
                uf = frames[user]
                return Creation(owner, uf, (logdir.code_line(uf) or "").strip())
        made = _search(logdir, owner)
        if made.frame is None and _NAMED_PATH.search(f.file):
            return _compiled(logdir, frames[user], owner) or made
        return made
    return None


# what `compile` makes from a name (`loss="huber"`, `optimizer="sgd"`) or a function
_NAMED_PATH = re.compile(r"[/\\](optimizers|optimizer_v2|losses)[/\\]")
_COMPILE = re.compile(r"(?<!\bre)\.compile\s*\(")


def _compiled(logdir: DebugLogdir, user: Frame, owner: str) -> Creation | None:
    """A loss or an optimizer that `fit` runs and the user's code constructs nowhere was
    made by `compile` from what it was given (a name, a function): the compile statement is
    the line that chose it. Only for a stack a Keras loop drives (the user's line is
    `model.fit(...)`), and only where one line of the user's sources calls `.compile(`
    (several: which one ran is not recorded, compile makes no op)."""
    if not drives_keras(logdir.code_line(user) or ""):
        return None
    hits = [(host, path, number, lines[number - 1]) for host, path, lines in _user_files(logdir)
            for number in calls(lines, {"compile"})
            if _COMPILE.search(lines[number - 1].split("#", 1)[0])]
    if len(hits) != 1:
        return None
    host, path, number, text = hits[0]
    lines = logdir.source_lines(host, path) or []
    return Creation(owner, Frame(path, number, _function_at(lines, number), host), text.strip())


def _search(logdir: DebugLogdir, owner: str) -> Creation:
    files = _user_files(logdir)
    names = _aliases([f[2] for f in files], owner)
    hits: list[Hit] = []
    for host, path, lines in files:
        for number in calls(lines, names):
            text = lines[number - 1]
            if text.lstrip().startswith(("class ", "def ")):
                continue
            hits.append((host, path, number, text))
    if len(hits) > 1:  # one construction per branch of an if/elif/else: the one that ran
        ran = ran_of(logdir, hits)
        if len(ran) == 1:
            hits = ran
        else:
            return Creation(owner, None, why=f"the line creating the {owner} is unknown: "
                                             f"`{owner}(` is on {len(hits)} lines of the "
                                             f"captured sources ({candidates(hits)}), and "
                                             f"{which_ran(ran)}")
    if not hits:
        return Creation(owner, None, why=f"the line creating the {owner} is unknown: "
                                         f"`{owner}(` is on no line of the captured sources")
    host, path, number, text = hits[0]
    lines = logdir.source_lines(host, path) or []
    frame = Frame(path, number, _function_at(lines, number), host)
    return Creation(owner, frame, text.strip())


# --------------------------------------------------------------- layers in `fit`
_DRIVERS = re.compile(r"\.(fit|train_on_batch|evaluate|predict|test_on_batch)\s*\(")
_LAYER_PATH = re.compile(r"[/\\]layers[/\\]")


def layer_build(frames: list[Frame]) -> bool:
    """Whether a stack runs a Keras layer's `build`: a variable it assigns is being created,
    its value the initializer's draw."""
    return any(f.function == "build" and _LAYER_PATH.search(f.file) for f in frames)
_AUTO_NAME = re.compile(r"^(.*?)(?:_(\d+))?$")


def drives_keras(code: str) -> bool:
    """Whether a line is a Keras loop (`model.fit(...)`): every op it runs carries it."""
    return bool(_DRIVERS.search(code))


def find_layer_creation(logdir: DebugLogdir, frames: list[Frame], op_name: str | None,
                        op_names: list[str] | None = None, method: str = "call"
                        ) -> Creation | None:
    """The line constructing the Keras layer whose `call` made an op that only carries the
    `model.fit` line (a functional or Sequential model: no user `call`). The layer's class
    comes from the innermost `call` method in a layers file on the stack; which of that
    class's constructions it is comes from the op's name: a layer named explicitly
    (`name="hidden"`) is found by that name, an automatic one (`dense_1`) by its number
    among the class's layers in the graph (`op_names`, in creation order: the order the
    model calls them) matched to the class's constructions in source order. None when
    nothing says (no such method on the stack); a Creation without a frame when it stays
    ambiguous. `method="build"`: the layer whose `build` created a variable (its
    initializer's draw, from a model built at construction or at its first call)."""
    owner, at = None, -1
    for i in range(len(frames) - 1, -1, -1):
        f = frames[i]
        if not f.resolved or not _LAYER_PATH.search(f.file) or f.function != method:
            continue
        lines = logdir.source_lines(f.host, f.file)
        if lines and 1 <= f.line <= len(lines):
            found = _enclosing(lines, f.line)
            if found is not None:
                owner, at = found[0], i
                break
    if owner is None:
        return None
    files = _user_files(logdir)
    layer = _layer_of(op_name or "")
    sites = _sites(files, {owner})
    if not sites:
        # the `call` is a base class's (Keras' merging layers share `Merge.call`, which
        # calls the subclass's `_merge_function`): the class of a method it calls into
        for f in frames[at + 1:]:
            lines = logdir.source_lines(f.host, f.file) if f.resolved \
                and _LAYER_PATH.search(f.file) else None
            found = _enclosing(lines, f.line) if lines and 1 <= f.line <= len(lines) \
                else None
            if found is not None and found[0] != owner and _sites(files, {found[0]}):
                owner, sites = found[0], _sites(files, {found[0]})
                break
    if not sites and layer:
        # the `call` is a base class's (Keras' pooling layers share `BasePooling.call`):
        # the user's constructions of a class whose automatic name the scope carries
        stem = re.sub(r"_\d+$", "", layer)
        classes = {c for _, _, lines in files for c in _called(lines) if _snake(c) == stem}
        sites = _sites(files, classes) if classes else []
    pick = None
    if layer:
        # `name="pool"` builds the scope `pool` or, in a model built twice, `pool_1`
        names = {layer, re.sub(r"_\d+$", "", layer)}
        named = [s for s in sites if any(
            re.search(rf"name\s*=\s*['\"]{re.escape(n)}['\"]", s[3]) for n in names)]
        if not named and not sites:
            named = [(host, path, number, lines[number - 1]) for host, path, lines in files
                     for number in calls(lines, _called(lines)) if any(re.search(
                         rf"name\s*=\s*['\"]{re.escape(n)}['\"]", lines[number - 1])
                         for n in names)]
        if len(named) == 1:
            pick = named[0]
        elif op_names:
            auto = _snake(owner)
            order: list[str] = []  # the class's layers, in the order the graph made them
            for name in op_names:
                seg = _layer_of(name)
                if seg.startswith(auto) and seg not in order:
                    order.append(seg)
            unnamed = [s for s in sites if "name=" not in s[3].replace(" ", "")]
            if layer in order and len(order) == len(unnamed):
                pick = unnamed[order.index(layer)]
    if pick is None and len(sites) == 1:
        pick = sites[0]
    if pick is None:
        return Creation(owner, None, why=f"the line creating this {owner} is unknown: "
                                         f"`{owner}(` is on {len(sites)} lines")
    host, path, number, text = pick
    lines = logdir.source_lines(host, path) or []
    code = lines[number - 1] if 0 < number <= len(lines) else text
    return Creation(owner, Frame(path, number, _function_at(lines, number), host),
                    code.strip())


def constructions_at(logdir: DebugLogdir, frame: Frame, owner: str) -> list[Creation]:
    """The constructions of class `owner` (or an alias) in the statement holding the user's
    line `frame` (a functional model's `Dense(6, name="gate")(inputs)`, a `Sequential([...])`
    spread over lines), in source order. A Keras base class (`BaseConv`, whose `build` and
    `call` its `Conv2D` inherits) stands for the classes of its stem the statement calls
    (`conv` in `conv2d`), as `find_layer_creation` reads a scope's automatic name."""
    lines = logdir.source_lines(frame.host, frame.file) or []
    span = statement_lines(lines, frame.line)
    if span is None:
        return []
    names = _aliases([lines], owner)
    if owner.startswith("Base") and len(owner) > 4:
        stem = _snake(owner[4:])
        names |= {c for c in _called(lines[span[0] - 1:span[1]]) if stem in _snake(c)}
    return [Creation(owner, Frame(frame.file, n, _function_at(lines, n), frame.host),
                     lines[n - 1].strip())
            for n in calls(lines, names) if span[0] <= n <= span[1]]


def _layer_of(op_name: str) -> str:
    """The layer's name in a Keras op name: the scope under the model's, whatever the op's
    own scopes below it (`functional_1/dense_1/MatMul` → `dense_1`,
    `sequential_1/hidden_1/Cast/ReadVariableOp` → `hidden_1`)."""
    parts = [p for p in op_name.split("/") if p]
    return parts[1] if len(parts) >= 3 else ""


def _sites(files: list[tuple[str, str, list[str]]], classes: set[str]
           ) -> list[tuple[str, str, int, str]]:
    """(host, path, line, text) of every construction of one of `classes` in user code; the
    text is the whole call, from its line to its closing parenthesis (`name="hidden"` on
    a continuation line names the layer built on the first)."""
    return [(host, path, number, _call_text(lines, number, classes))
            for host, path, lines in files for number in calls(lines, classes)]


def _call_text(lines: list[str], number: int, classes: set[str]) -> str:
    """Line `number` and the lines after it up to the parenthesis closing the call of one of
    `classes` that starts on it (at most 12 lines); the line alone when none closes."""
    text = "\n".join(t for t in lines[number - 1:number + 11] if len(t) <= MAX_LINE)
    m = re.search(rf"(?<![\w])(?:{'|'.join(map(re.escape, sorted(classes)))})\s*\(", text)
    depth = 0
    for i in range(m.end() - 1 if m else len(text), len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[:i + 1]
    return lines[number - 1]


def _called(lines: list[str]) -> set[str]:
    """Capitalised names called in a source: the classes it may construct."""
    return {c for t in lines if len(t) <= MAX_LINE for c in re.findall(r"\b([A-Z]\w*)\s*\(", t)}


def _snake(name: str) -> str:
    """Keras' automatic layer name of a class: `AveragePooling2D` → `average_pooling2d`."""
    s = re.sub(r"(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", s).lower()


__all__ = ["Creation", "constructions_at", "drives_keras", "find_creation",
           "find_layer_creation"]
