"""`tfdbg-tui LOGDIR [--run ID] [--compare B ...]`: open the terminal debugger.

Opening only discovers the logdir's files (fast, and where a bad path is caught with a
one-line error and exit status 2); reading them happens inside the app, in a worker, so the
first screen shows at once even for a million traces. With `--compare B`, run B is read and
compared once A is (compare mode: `tfdbg_tui.ui.compare.view`). The exit status is 0 after
a normal quit, 2 for a user error, 1 when the app crashed or stopped reading on an error.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from reader import LogdirError, ReaderError
from tfdbg_tui.commands.args import Parser, UsageError, apply_remote_timeout, seconds
from tfdbg_tui.commands.diff_map import MapError, Rule, read_map
from tfdbg_tui.core.compare.user_map import CompareMap
from tfdbg_tui.core.sanitize import error_line
from tfdbg_tui.core.textutil import lit

USAGE = ("tfdbg-tui LOGDIR [--run ID] [--compare B [--run-b ID] [--rtol R] [--atol A] "
         "[--map FILE]] [--remote-timeout SECONDS]")
HELP = f"""\
usage: {USAGE}

Open the terminal debugger on a tfdbg2 logdir (the first alert is followed at launch).
  --run ID      the run to open when the logdir holds several (default: the newest)
  --compare B   compare with run B's logdir: d/D jump between divergences, b shows B's side
  --run-b ID    the run of B to compare with
  --rtol R      relative tolerance of the comparison (default numpy's 1e-7)
  --atol A      absolute tolerance of the comparison (default 0)
  --map FILE    pair variables the comparison cannot pair itself, as `diff --map`: lines
                'A_REGEX = B_REGEX' (searched in the variable names each run shows)
  --remote-timeout SECONDS
                how long a read from a bucket (s3://, gs://) may wait for the network:
                to connect, for each answer, for each 64 KiB (default 30, or
                $TFDBG_TUI_REMOTE_TIMEOUT); `q` quits at once whatever the network does
In the app, ? lists every key and ctrl+p searches every action. Other commands:
tfdbg-tui --help.
"""
OPTIONS = ("--run", "--compare", "--run-b", "--rtol", "--atol", "--map", "--remote-timeout")


def main(args: Sequence[str]) -> int:
    """Open the app on LOGDIR; returns the exit status (2 for any user error)."""
    if "-h" in args or "--help" in args:  # anywhere, as `tfdbg-tui LOGDIR --help`
        print(HELP, end="")
        return 0
    problem = _unknown_option(args)
    if problem is not None:  # (one line, as every command's usage errors: no usage block)
        print(error_line("tfdbg-tui: error", problem), file=sys.stderr)
        return 2
    parser = Parser(prog="tfdbg-tui", usage=USAGE, add_help=False)
    parser.add_argument("logdir")
    parser.add_argument("--run", default=None)
    parser.add_argument("--compare", default=None, metavar="B")
    parser.add_argument("--run-b", default=None)
    parser.add_argument("--rtol", type=nonnegative, default=None)
    parser.add_argument("--atol", type=nonnegative, default=None)
    parser.add_argument("--map", default=None, metavar="FILE")
    parser.add_argument("--remote-timeout", type=seconds, default=None)
    try:
        ns = parser.parse_args(list(args))
    except UsageError as exc:
        print(error_line("tfdbg-tui: error", f"{exc} (see tfdbg-tui LOGDIR --help)"),
              file=sys.stderr)
        return 2
    rules: list[Rule] = []
    if ns.map is not None:  # read first, as diff does: a bad map is said before any read
        if not ns.compare:
            print(error_line("tfdbg-tui: error", "--map pairs the variables of a comparison: "
                             "give --compare B too (see tfdbg-tui LOGDIR --help)"),
                  file=sys.stderr)
            return 2
        try:
            rules = read_map(ns.map)
        except MapError as exc:
            print(error_line("tfdbg-tui: error", exc), file=sys.stderr)
            return 2
    apply_remote_timeout(ns.remote_timeout)
    try:
        from reader import DebugLogdir

        # compared runs keep their rows' digests (8 bytes a row): equal rows compare fast
        logdir = DebugLogdir(ns.logdir, ns.run, cache=True, digests=bool(ns.compare))
        other = (DebugLogdir(ns.compare, ns.run_b, cache=True, digests=True) if ns.compare
                 else None)
    except (LogdirError, ReaderError) as exc:  # run ids and names come from the logdir
        print(error_line("tfdbg-tui: error", exc), file=sys.stderr)
        return 2
    except OSError as exc:
        print(error_line("tfdbg-tui: error",
                         f"{exc.filename or ns.logdir}: {exc.strerror or exc}"), file=sys.stderr)
        return 2
    if not _on_a_terminal():
        print(error_line("tfdbg-tui: error", f"{lit(ns.logdir)} opens a full-screen app, which "
                         "needs a terminal (stdin and stdout are not one here); for text, use: "
                         f"tfdbg-tui report {lit(ns.logdir)}"), file=sys.stderr)
        return 2
    from tfdbg_tui.core.compare import Tolerance
    from tfdbg_tui.core.memory import calm_collector
    from tfdbg_tui.ui.app import TfdbgApp

    default = Tolerance()
    tolerance = Tolerance(default.rtol if ns.rtol is None else ns.rtol,
                          default.atol if ns.atol is None else ns.atol)
    app = TfdbgApp(logdir, display_path=ns.logdir, compare_with=other, tolerance=tolerance,
                   compare_map=CompareMap(ns.map, rules) if rules else None)
    calm_collector()  # (this process runs the app and ends with it)
    _run(app)
    if app.read_error is not None:  # shown in the app too; the screen is gone now
        print(f"tfdbg-tui: error: {app.read_error}", file=sys.stderr)
    # non-zero when the app crashed (Textual sets 1 and prints the traceback) or its
    # reading worker died (TfdbgApp.exit)
    status = app.return_code or 0
    _end_soon(status)
    return status


def _run(app: Any) -> None:
    """`app.run()` on a loop of our own, closed without waiting for its executor's threads
    (`asyncio.run` joins them: the app's reading worker runs there, and a read stalled on
    the network held the process after `q` had cleared the screen). What they were doing is
    dropped by `_end_soon`."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    try:
        app.run(loop=loop)
    finally:
        try:
            tasks = asyncio.all_tasks(loop)
            for task in tasks:
                task.cancel()
            if tasks:
                loop.run_until_complete(asyncio.gather(*tasks, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            asyncio.set_event_loop(None)
            loop.close()  # (its executor shut down without waiting)


def _end_soon(status: int, grace: float = 0.5) -> None:
    """End the process now that the app has quit, if threads are still busy after `grace`
    seconds. Why: a read waiting on the network (a stalled bucket) holds a thread the
    interpreter would join on exit — for up to the remote timeout, or for ever — after the
    screen was already cleared. Nothing they do is worth waiting for: the index cache writes
    its entries whole or not at all (`reader.cache.store`)."""
    deadline = time.monotonic() + grace
    for t in threading.enumerate():
        if t is not threading.current_thread() and t.is_alive():
            t.join(max(0.0, deadline - time.monotonic()))
    busy = [t for t in threading.enumerate()
            if t is not threading.current_thread() and t.is_alive() and not t.daemon]
    if not busy and not _pools_busy():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(status)


def _pools_busy() -> bool:
    """Threads of a concurrent.futures pool still alive (joined at exit, daemon or not)."""
    from concurrent.futures import thread as pool_threads

    queues = getattr(pool_threads, "_threads_queues", {})
    return any(t.is_alive() for t in list(queues))


def _on_a_terminal() -> bool:
    """Both stdin and stdout are a terminal: without one (`</dev/null`, `| head`, cron) the
    app would write full-screen escape codes into a pipe and wait for keys for ever."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


def _unknown_option(args: Sequence[str]) -> str | None:
    """The first option we do not know, said as such (argparse would report a missing
    LOGDIR for `tfdbg-tui --bogus`, which sends the user looking in the wrong place)."""
    for arg in args:
        if arg == "--":
            return None
        if arg.startswith("-") and len(arg) > 1 and not _is_number(arg):
            name = arg.split("=", 1)[0]
            if name not in OPTIONS:
                return f"unknown option {lit(name)} (see tfdbg-tui LOGDIR --help)"
    return None


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def nonnegative(text: str) -> float:
    """A tolerance (`--rtol`, `--atol`): a finite number ≥ 0 (NaN would make every value
    "different", ∞ every value "equal")."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number ≥ 0: {text!r}")
    return value
