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


def test_human_report_of_huge_strings_is_bounded() -> None:
    """Every string of a report entry 100 MB long (op name, graph, file, code, explanation,
    warning): the human report prints each cut, so its size does not depend on theirs."""
    import io

    from rich.console import Console

    from tfdbg_tui.commands.report.text import print_report

    huge = "n" * (100 << 20)
    frame = {"file": huge, "line": 6, "function": huge, "code": huge}
    entry = {"kind": "graph", "index": 0, "op_type": huge, "op_name": huge, "output_slot": 0,
             "graph_name": huge, "size": 1, "nan": 1, "neg_inf": 0, "pos_inf": 0,
             "user_frame": frame, "diagnosis": None, "diagnosis_error": huge}
    report = {"logdir": huge, "run": {"id": huge, "tensorflow_version": huge, "hosts": [huge]},
              "runs": [huge], "tensor_debug_modes": ["FULL_HEALTH"],
              "counts": dict.fromkeys(("executions", "graph_traces", "graphs", "ops",
                                       "source_files", "stack_frames"), 1),
              "alerts": {"total": 1}, "first_alerts": [entry], "warnings": [huge]}
    out = io.StringIO()
    print_report(report, Console(file=out, width=100, color_system=None))
    shown = out.getvalue()
    assert "…[+104,853,504" in shown  # the cut is said (Rich may wrap before "chars]")
    assert len(shown) < 40 * (MAX_CHARS + 200)  # 13 strings, each cut
