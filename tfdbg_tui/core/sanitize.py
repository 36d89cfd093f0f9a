"""Make untrusted strings (op names, paths, source lines) safe to show as literal text.

A logdir is data from somewhere else. Its strings must never reach the terminal as escape
sequences, nor be parsed as Rich markup. Callers put the result in a `rich.text.Text` (which
does not parse markup) or a `Strip`/`Segment`; this function makes control characters visible:
ESC → `\\x1b`, BEL → `\\x07`, and so on. Tabs become spaces so columns stay aligned.

Zero-width and invisible formatting characters (zero-width space/joiners, LRM/RLM, word
joiner, invisible operators, BOM, soft hyphen) are escaped too: they draw nothing, so an op
name or path holding one looks identical to a different string — `\\u200b` makes the
difference visible. They are always shown as `\\uXXXX` (also U+00AD, which is ≤ 0xFF),
because they are Unicode formatting characters, not bytes.
"""

from __future__ import annotations

import re

_INVISIBLE = r"\u00ad\u200b-\u200f\u2060-\u2064\ufeff"
_CONTROL = re.compile(
    r"[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069" + _INVISIBLE + "]")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    code = ord(ch)
    if code <= 0x9F:  # C0/C1 controls and DEL read as bytes; U+00AD is a format char
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def literal(s: str | None, tabsize: int = 4) -> str:
    """`s` with control, bidi-override and invisible characters shown as escapes, tabs expanded."""
    if not s:
        return ""
    if "\t" in s:
        s = s.expandtabs(tabsize)
    return _CONTROL.sub(_escape, s)
