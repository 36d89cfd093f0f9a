"""The status a command ends with when its reader goes away mid-output (`… | head -1`).

Why: a closed pipe ends the command quietly, as `grep` ends — but its exit status must still
be its own: `report | head -1` of a run with alerts is 1, `diff | head -1` of equivalent
runs 0. Before, the CLI said 0 whatever the verdict (a run with alerts "clean"), and Rich,
on a broken pipe, exits with 1 by itself (`diff`'s "diverge", for runs that do not). So a
command says its status before it writes (`planned`), the CLI ends with it when the pipe
closes, and Rich's consoles raise the BrokenPipeError instead of exiting (`console`).
"""

from __future__ import annotations

from typing import Any

_planned: int | None = None


def planned(status: int) -> int:
    """Remember `status` as the one to end with even if the output is cut short; returns it."""
    global _planned
    _planned = status
    return status


def status_if_cut() -> int:
    """The status planned by the command whose output was cut (0 if it planned none)."""
    return 0 if _planned is None else _planned


def forget() -> None:
    global _planned
    _planned = None


def console(**kw: Any) -> Any:
    """A Rich Console for stdout whose broken pipe is a BrokenPipeError (the CLI ends
    quietly with the planned status), not Rich's own `SystemExit(1)`."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            raise BrokenPipeError(32, "Broken pipe")

    return _Console(**kw)
