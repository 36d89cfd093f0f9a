"""tfdbg-tui: a keyboard-driven terminal debugger for tfdbg2 logdirs.

`tfdbg_tui.open(logdir)` gives the index as tables for notebooks (`tfdbg_tui.api`);
`tfdbg_tui.demo_logdir()` is where `tfdbg-tui demo` recorded its example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tfdbg_tui.api import Run

__version__ = "0.1.0"


def open(logdir: str, run: str | None = None) -> Run:  # the notebook verb
    """Read a tfdbg2 logdir (a path, or a URL such as s3://bucket/run) and return its run:
    tables (pyarrow / pandas) of executions, graph traces, alerts, stack frames, and the
    first alerts with their diagnosis. See `tfdbg_tui.api`."""
    from tfdbg_tui.api import open_run

    return open_run(logdir, run)


def demo_logdir() -> str:
    """Where `tfdbg-tui demo` (`make demo`) records its example: `$XDG_CACHE_HOME/tfdbg-tui/
    demo`, else `~/.cache/tfdbg-tui/demo` — so a notebook opens it without knowing that."""
    from tfdbg_tui.commands.demo import cache_dir

    return cache_dir()
