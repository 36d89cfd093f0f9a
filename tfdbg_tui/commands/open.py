"""`tfdbg-tui LOGDIR [--run ID]`: open the terminal debugger.

Opening only discovers the logdir's files (fast, and where a bad path is caught with a
one-line error and exit status 2); reading them happens inside the app, in a worker, so the
first screen shows at once even for a million traces.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from reader import LogdirError, ReaderError

USAGE = "tfdbg-tui LOGDIR [--run ID]"


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise ValueError(message)


def main(args: Sequence[str]) -> int:
    """Open the app on LOGDIR; returns the exit status (2 for any user error)."""
    parser = _Parser(prog="tfdbg-tui", usage=USAGE, add_help=False)
    parser.add_argument("logdir")
    parser.add_argument("--run", default=None)
    try:
        ns = parser.parse_args(list(args))
    except ValueError as exc:
        print(f"tfdbg-tui: error: {exc}\nusage: {USAGE}", file=sys.stderr)
        return 2
    try:
        from reader import DebugLogdir

        logdir = DebugLogdir(ns.logdir, ns.run, cache=True)
    except (LogdirError, ReaderError) as exc:
        print(f"tfdbg-tui: error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tfdbg-tui: error: {ns.logdir}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    from tfdbg_tui.ui.app import TfdbgApp

    TfdbgApp(logdir, display_path=ns.logdir).run()
    return 0
