"""Which line each side of a `diff` divergence shows, written into its JSON entries.

The decisions (the line to change, not merely the one that ran the op: the line constructing
a loss, schedule, optimizer or layer, the weight a missing penalty would regularize) are
`core.compare.lines.place`'s, shared with the TUI's Stack Trace and Source Code; this module
only writes them as `diff --json` has always spelled them: `user_frame` (and `stack` when
another stack holds the line), `created_by`, `creation_unknown`, `created_at`, `applied_at`.
"""

from __future__ import annotations

from typing import Any

from tfdbg_tui.core.compare import Comparison
from tfdbg_tui.core.compare.lines import Line, SideLines, place


def place_lines(c: Comparison, p: int, quantity: str, a: dict[str, Any], b: dict[str, Any]
                ) -> None:
    """Set each side's `user_frame` (and `created_at`/`applied_at`) for divergence `p`.
    `quantity` is pair `p`'s (`place` reads it from the comparison)."""
    del quantity
    for entry, lines in zip((a, b), place(c, p), strict=True):
        _write(entry, lines)


def _line_dict(line: Line) -> dict[str, Any]:
    from tfdbg_tui.commands.report.build import _frame_dict as frame_dict

    return {**frame_dict(line.frame), "code": line.code}


def _write(entry: dict[str, Any], s: SideLines) -> None:
    """`s` into `entry` (a `tensor_entry`): its keys in the order diff has always added them."""
    from tfdbg_tui.commands.report.build import _frame_dict as frame_dict

    if s.stack is not None:
        entry["stack"] = [frame_dict(f) for f in s.stack]
    if s.line is not None:
        entry["user_frame"] = _line_dict(s.line)
    if s.created_by is not None:
        entry["created_by"] = s.created_by
    if s.creation_unknown is not None:
        entry["creation_unknown"] = s.creation_unknown
    if s.created_at is not None:
        entry["created_at"] = _line_dict(s.created_at)
    if s.applied_at is not None:
        entry["applied_at"] = _line_dict(s.applied_at)
    elif s.applied_nowhere:
        entry["applied_at"] = {}
