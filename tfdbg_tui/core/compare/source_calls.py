"""Reading the user's captured Python source by its tokens: the lines of one statement, the
lines that call a name (a name in a string or a comment is no call), and which of several
calls of it ran — the question a construction in each branch of an if/elif/else asks. Apart
from `creation` (which object's construction to look for), so each stays short.
"""

from __future__ import annotations

import re

from reader import DebugLogdir

# Lines longer than this are not searched: code that constructs an object is short, and a
# forged source file's megabyte line would cost the regexes quadratic time.
MAX_LINE = 2000
_MAX_SOURCE = 4 << 20  # characters of one file tokenized


def construction(name: str) -> re.Pattern[str]:
    """`name(` as a call: not the tail of a longer name."""
    return re.compile(rf"(?<![\w]){re.escape(name)}\s*\(")


def statement_lines(lines: list[str], line: int) -> tuple[int, int] | None:
    """The first and last line (1-based) of the statement holding `line`, read from the
    source's tokens (a call spread over lines is one statement); None when the source is
    too big or cannot be tokenized, or `line` holds no statement."""
    import io
    import tokenize

    text = "\n".join(lines) + "\n"
    if len(text) > _MAX_SOURCE:
        return None
    skip = (tokenize.COMMENT, tokenize.NL, tokenize.INDENT, tokenize.DEDENT)
    start: int | None = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type in skip:
                continue
            if tok.type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                if start is not None and start <= line <= tok.start[0]:
                    return start, tok.start[0]
                if start is not None and start > line:
                    return None
                start = None
                continue
            if start is None:
                start = tok.start[0]
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return None
    return None


def calls(lines: list[str], names: set[str]) -> list[int]:
    """1-based lines where one of `names` is called (`Name(`, `mod.Name(`), read from the
    source's tokens: a name in a string, a docstring or a comment is no construction. A
    file Python cannot tokenize falls back to its lines, comments cut."""
    import io
    import tokenize

    text = "\n".join(t for t in lines if len(t) <= MAX_LINE) + "\n"
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
        patterns = [construction(n) for n in names]
        found = [n for n, t in enumerate(lines, 1) if len(t) <= MAX_LINE
                 and any(p.search(t.split("#", 1)[0]) for p in patterns)]
    # lines were dropped above only when too long: map token lines back to the file's
    if any(len(t) > MAX_LINE for t in lines):
        kept = [n for n, t in enumerate(lines, 1) if len(t) <= MAX_LINE]
        found = [kept[n - 1] for n in found if 0 < n <= len(kept)]
    return sorted(set(found))


Hit = tuple[str, str, int, str]  # host, path, 1-based line, its text


def ran_of(logdir: DebugLogdir, hits: list[Hit]) -> list[Hit]:
    """The constructions among `hits` that ran: their statement holds the line of a recorded
    stack frame — a constructor that makes ops or eager executions as it runs (Keras 3's
    optimizer makes its `iterations` and `learning_rate` variables) leaves its line on their
    stacks; a branch not taken leaves none. TF1's optimizers make no op when constructed:
    then none is found."""
    spans: dict[str, list[tuple[int, int, Hit]]] = {}
    for hit in hits:
        host, path, number, _ = hit
        lines = logdir.source_lines(host, path) or []
        first, last = statement_lines(lines, number) or (number, number)
        spans.setdefault(path, []).append((first, last, hit))
    out: list[Hit] = []
    for _, _, path, line, _, _ in logdir.sources.frame_rows():
        for first, last, hit in spans.get(path, []):
            if first <= line <= last and hit not in out:
                out.append(hit)
    return sorted(out, key=lambda h: (h[1], h[2]))


def candidates(hits: list[Hit]) -> str:
    """`file.py:12, 14, 17` per file, at most a few lines named."""
    by_file: dict[str, list[int]] = {}
    for _, path, number, _ in hits:
        by_file.setdefault(path, []).append(number)
    parts = []
    for path, numbers in by_file.items():
        shown = ", ".join(str(n) for n in numbers[:6])
        more = f" and {len(numbers) - 6} more" if len(numbers) > 6 else ""
        parts.append(f"{path.replace(chr(92), '/').rsplit('/', 1)[-1]}:{shown}{more}")
    return "; ".join(parts)


def which_ran(ran: list[Hit]) -> str:
    if not ran:
        return "no recorded op or execution was made on any of them to tell which ran"
    return f"ops were recorded on {len(ran)} of them ({candidates(ran)})"
