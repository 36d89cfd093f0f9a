"""Make untrusted strings (op names, paths, source lines) safe to show as literal text.

A logdir is data from somewhere else. Its strings must never reach the terminal as escape
sequences, nor be parsed as Rich markup. Callers put the result in a `rich.text.Text` (which
does not parse markup) or a `Strip`/`Segment`; this function makes control characters visible:
ESC → `\\x1b`, BEL → `\\x07`, and so on. Tabs become spaces so columns stay aligned.
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def literal(s: str | None, tabsize: int = 4) -> str:
    """`s` with control characters (and bidi overrides) shown as escapes, tabs expanded."""
    if not s:
        return ""
    if "\t" in s:
        s = s.expandtabs(tabsize)
    return _CONTROL.sub(_escape, s)
