"""The one sanitizer: make untrusted strings (op names, paths, source lines, run ids, error
messages) safe to show as literal text, on stdout, stderr and in the TUI alike.

A logdir is data from somewhere else. Its strings must never reach the terminal as escape
sequences, nor be parsed as Rich markup, nor split a one-line message in two. Callers put the
result in a `rich.text.Text` (which does not parse markup), a `Strip`/`Segment`, or a line
printed with `error_line`; this module makes every character that does not draw itself
visible: ESC → `\\x1b`, BEL → `\\x07`, a newline → `\\x0a`, and so on. Tabs become spaces so
columns stay aligned.

What counts as "does not draw itself":
- C0 and C1 controls and DEL (shown as `\\xNN`, as bytes);
- every Unicode format character (category Cf): bidi controls such as U+202E and U+061C,
  zero-width characters, the BOM, soft hyphen, invisible operators, tag characters
  (U+E0000–E007F), U+180E…; and the line/paragraph separators U+2028/U+2029;
- characters that draw a blank or nothing without being format characters: U+034F (combining
  grapheme joiner), the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent
  vowels U+17B4/5, the Mongolian variation selectors U+180B–180F, U+2800 (braille blank) and
  the variation selectors U+FE00–FE0F and U+E0100–E01EF;
- lone surrogates (a file name that is not UTF-8 reaches Python as U+DCxx): a terminal
  cannot even be sent those, printing one raises.
They are shown as `\\uXXXX` / `\\UXXXXXXXX`: an op name holding one then looks different from
the name without it. A test checks the Cf list against the running Python's Unicode data.

Cost is bounded per string: at most `MAX_CHARS` characters are escaped and shown, the rest is
counted ("…[+N chars]"), so a 100 MB op name costs the same as a short one.
"""

from __future__ import annotations

import re

MAX_CHARS = 4096

# Unicode format characters (Cf) and separators (Zl, Zp), as of Unicode 14/15.
_FORMAT = (
    r"\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    r"\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb"
    r"\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    r"\U000e0001\U000e0020-\U000e007f"
)
# Blank or invisible characters of other categories.
_BLANK = (
    r"\u034f\u115f\u1160\u17b4\u17b5\u180b-\u180f\u2800\u3164\ufe00-\ufe0f\uffa0"
    r"\U000e0100-\U000e01ef"
)
_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff" + _FORMAT + _BLANK + "]")


def _escape(m: re.Match[str]) -> str:
    code = ord(m.group(0))
    if code <= 0x9F:  # C0/C1 controls and DEL read as bytes; U+00AD is a format char
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def literal(s: str | None, tabsize: int = 4, limit: int = MAX_CHARS) -> str:
    """`s` with every character that does not draw itself shown as an escape, tabs expanded,
    and cut after `limit` characters (the cut is said, with how many were left out)."""
    if not s:
        return ""
    if not isinstance(s, str):
        s = str(s)
    extra = len(s) - limit
    if extra > 0:
        s = s[:limit]
    if "\t" in s:
        s = s.expandtabs(tabsize)
    s = _CONTROL.sub(_escape, s)
    return f"{s}…[+{extra:,} chars]" if extra > 0 else s


def error_line(prefix: str, message: object) -> str:
    """`prefix: message` as one safe line (for stderr): the message is sanitized, so a run id
    or file name holding a newline or an escape sequence cannot break or hijack it."""
    return f"{prefix}: {literal(str(message))}"
