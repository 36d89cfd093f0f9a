"""The one sanitizer, against the set of characters the hostile tests forbid on a terminal,
and its bounded cost per string."""

from __future__ import annotations

import sys

from hostile.checks import forbidden

from tfdbg_tui.core.sanitize import MAX_CHARS, error_line, literal


def test_every_forbidden_character_is_escaped() -> None:
    pattern = forbidden()
    missed = [c for c in range(sys.maxunicode + 1)
              if c != 0x0A and pattern.match(chr(c)) and pattern.search(literal(chr(c)))]
    assert missed == [], [f"U+{c:04X}" for c in missed[:20]]


def test_lone_surrogates_from_undecodable_file_names_are_escaped() -> None:
    name = b"tfdbg_events.1.h\xff.execution".decode("utf-8", "surrogateescape")
    shown = literal(name)
    shown.encode("utf-8")  # printable: no lone surrogate left
    assert "\\udcff" in shown


def test_escapes_name_the_code_point() -> None:
    assert literal("a\u061cb\U000e0041c\u3164") == "a\\u061cb\\U000e0041c\\u3164"


def test_long_strings_are_cut_and_the_cut_is_said() -> None:
    s = "x" * (MAX_CHARS + 12_345)
    shown = literal(s)
    assert shown.startswith("x" * MAX_CHARS)
    assert shown.endswith("…[+12,345 chars]")
    assert len(literal("\x1b" * (10 * MAX_CHARS))) < 5 * MAX_CHARS + 40


def test_error_line_is_one_line() -> None:
    line = error_line("tfdbg-tui report: error", "run 'a\nb\x1b]52;c;x\x07' not found")
    assert "\n" not in line and "\x1b" not in line and "\x07" not in line
    assert line.startswith("tfdbg-tui report: error: run 'a\\x0ab\\x1b]52;c;x\\x07'")
