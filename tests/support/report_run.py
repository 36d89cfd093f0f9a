"""`tfdbg-tui report --json LOGDIR` run through the command's own entry point, in this process.

The zoo and the edges read ~80 logdirs a run as a user would, with `tfdbg-tui report --json`.
As a subprocess each cost ~1.1 s, ~0.9 of it Python starting and importing our modules; the
diagnosis itself ~0.25 s. Here the command runs as `tfdbg-tui` does (tfdbg_tui.cli.main: the
same argument parsing, dispatch, exit status and streams), only without a new interpreter.
The command writes to sys.stdout/sys.stderr: calls are serialized by a lock and must come
from the main thread (the command's Ctrl-C watch sets signal handlers).
"""

from __future__ import annotations

import contextlib
import io
import json
import threading
from dataclasses import dataclass
from typing import Any

_LOCK = threading.Lock()


@dataclass
class Reported:
    status: int  # the command's exit status
    report: dict[str, Any] | None  # the JSON it printed, None if it printed none
    error: str  # the tail of its stderr (and why the JSON was unreadable)


def report_json(logdir: str, *args: str) -> Reported:
    from tfdbg_tui.cli import main

    out, err = io.StringIO(), io.StringIO()
    with _LOCK, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["report", "--json", logdir, *args])
    error = err.getvalue()[-2000:]
    report: dict[str, Any] | None = None
    try:
        report = json.loads(out.getvalue())
    except ValueError as e:
        error = f"{e}; {error}"
    return Reported(status, report, error)
