"""`literal()` makes invisible characters visible: a string from a logdir must not look like
a different string on screen (zero-width and formatting characters draw nothing)."""

from __future__ import annotations

import pytest

from tfdbg_tui.core.sanitize import literal

INVISIBLE = [*range(0x200B, 0x2010), *range(0x2060, 0x2065), 0xFEFF, 0x00AD]


@pytest.mark.parametrize("code", INVISIBLE, ids=lambda c: f"U+{c:04X}")
def test_invisible_characters_are_escaped_as_u(code: int) -> None:
    shown = literal(f"dense{chr(code)}/MatMul")
    assert shown == f"dense\\u{code:04x}/MatMul"
    assert chr(code) not in shown


def test_controls_stay_byte_escapes_and_visible_text_is_unchanged() -> None:
    assert literal("a\x1b[31m\x07\x9f") == "a\\x1b[31m\\x07\\x9f"
    assert literal("é ü — ∞ 日本 [b]x[/b]") == "é ü — ∞ 日本 [b]x[/b]"
    assert literal("\u2010\u2065\u200a") == "\u2010\u2065\u200a"  # neighbours of the ranges
