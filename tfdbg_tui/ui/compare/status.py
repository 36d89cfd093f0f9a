"""What the header says in compare mode (`tfdbg-tui A --compare B`).

Why a module of its own: the comparison engine (`tfdbg_tui.core.compare`) is being given a
verdict of its own (`Comparison.verdict_text()`); this is the one place the UI reads it, so
rewiring is one function. Until the engine has it, the verdict is made from the counts.
"""

from __future__ import annotations

from tfdbg_tui.core.compare import Comparison
from tfdbg_tui.core.textutil import fit_left, lit


def verdict_of(comparison: Comparison) -> str:
    """The comparison's verdict in a few words ("3 of 40 pairs differ", "equivalent")."""
    text = getattr(comparison, "verdict_text", None)
    if callable(text):
        return lit(str(text()))
    if comparison.different:
        return f"{comparison.different:,} of {comparison.compared:,} pairs differ"
    if not comparison.compared:
        return "nothing could be aligned"
    return f"equivalent ({comparison.compared:,} pairs)"


def compare_status(other_path: str | None, comparison: Comparison | None,
                   error: str | None = None) -> str | None:
    """The header's compare part: None without `--compare`; "vs B …: comparing…" while
    run B is read and compared; then the verdict (or that comparing failed)."""
    if other_path is None:
        return None
    where = f"vs B {fit_left(lit(other_path), 24)}"
    if error is not None:
        return f"{where}: compare failed"
    if comparison is None:
        return f"{where}: comparing…"
    return f"{where}: {verdict_of(comparison)}"
