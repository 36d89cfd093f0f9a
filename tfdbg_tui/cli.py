"""The `tfdbg-tui` command: dispatches to a subcommand (`report`, `diff`, `run`, …) or opens
the TUI on a logdir.

Each subcommand lives in its own module and is imported lazily, so `report` never pays for
Textual and `run` never pays for the reader's UI. Every failure the user can cause (bad path,
bad flag, unreadable logdir) ends in one line on stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import errno
import gc
import io
import os
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tfdbg_tui.commands.interrupts import INTERRUPTED, Watch

USAGE = """\
usage: tfdbg-tui LOGDIR [--run ID]        open the terminal debugger on a tfdbg2 logdir
       tfdbg-tui A --compare B [--run ID] [--run-b ID] [--rtol R] [--atol A] [--map FILE]
                                          the debugger on run A, compared with run B
       tfdbg-tui report LOGDIR [--json] [--run ID] [--limit N] [--values]
                                          the findings as text (or JSON): steps, incidents
       tfdbg-tui diff A B [--run-a ID] [--run-b ID] [--rtol R] [--atol A] [--tight-steps N]
                          [--map FILE] [--csv FILE] [--json] [--limit N]
                                          the first tensor where two runs diverge
       tfdbg-tui run [--logdir DIR] [--mode MODE] [--buffer N] [--op-regex RE]
                     [--overwrite] [--stop-at-nan] -- SCRIPT.py ARGS | -m MODULE ARGS
       tfdbg-tui export LOGDIR OUT_DIR [--format parquet|csv] [--run ID] [--diagnose N]
                        [--raw-csv]       the index as tables (executions, traces, alerts, …)
       tfdbg-tui index LOGDIR [--engine local|dask[=ADDRESS]] [--workers N] [--out URL]
                       [--run ID] [--force]
                                          index a run's hosts as Parquet shards (a cluster)
       tfdbg-tui demo [--no-open] [--refresh]
                                          record the built-in NaN example and open it
       tfdbg-tui cache [clear]            show (or clear) the index cache of big logdirs
`--remote-timeout SECONDS` (LOGDIR, report, diff, export, index): how long a read from a
bucket may wait for the network (default 30, or $TFDBG_TUI_REMOTE_TIMEOUT).
`tfdbg-tui COMMAND --help` says what each option does; `tfdbg-tui --version` (-V) the
version and which reader core reads.
"""

SUBCOMMANDS = ("report", "diff", "run", "demo", "open", "cache", "export", "index")


def _fail(message: str) -> int:
    from tfdbg_tui.core.sanitize import error_line

    try:
        print(error_line("tfdbg-tui: error", message), file=sys.stderr)
    except (OSError, ValueError):  # stderr itself cannot be written (`2>/dev/full`): the
        pass  # status still says it
    return 2


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


class _ClosedOutput(io.TextIOBase):
    """stdout when the command was started with it closed (`>&-`): writing is an error, as
    in every tool (`ls >&-`: "write error: Bad file descriptor", status 2), said in one line
    by `_main` — not Python's AttributeError on `None` (a traceback; `report` then ended 1,
    its status for "alerts found")."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not text:
            return 0
        raise OSError(errno.EBADF, "stdout is closed (Bad file descriptor)")

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        return 1


def _standard_streams() -> None:
    """Make a process started with its standard descriptors closed, or a terminal size that
    does not fit in memory, one the commands can run in. A closed 0, 1 or 2 gets /dev/null:
    else the next file opened takes its number (a logdir file, export's table) and whatever
    writes to fd 1 or 2 (a library's warning) writes into it. stdout stays an error to write
    to (`_ClosedOutput`), stdin and stderr are /dev/null (what cannot be said is not said; the
    status still is). $COLUMNS/$LINES beyond 100,000 are taken as 100,000: rich pads a line to
    that width (an OverflowError traceback for 10**21, MemoryError for 10**12)."""
    for fd, mode in ((0, os.O_RDONLY), (1, os.O_WRONLY), (2, os.O_WRONLY)):
        try:
            os.fstat(fd)
            continue
        except OSError:
            pass
        try:
            null = os.open(os.devnull, mode)
            if null != fd:
                os.dup2(null, fd)
                os.close(null)
        except OSError:
            continue
        if fd == 0 and sys.stdin is None:
            sys.stdin = open(0, closefd=False)
        elif fd == 1 and sys.stdout is None:
            sys.stdout = _ClosedOutput()
        elif fd == 2 and sys.stderr is None:
            sys.stderr = open(2, "w", closefd=False)
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name, "").strip()
        if value.isdigit() and int(value) > 100_000:
            os.environ[name] = "100000"


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the console script; returns the process exit status."""
    if argv is None:
        _standard_streams()
    args = list(sys.argv[1:] if argv is None else argv)
    command = args[0] if args and args[0] in SUBCOMMANDS else "open"
    # a one-shot command stopped by Ctrl-C ends 130 whoever caught its KeyboardInterrupt
    # (tfdbg_tui/commands/interrupts.py); the TUI and `run` (the program's own status) not
    watch = Watch().start() if command in ONE_LOOK else None
    status = INTERRUPTED
    try:
        status = _main(args, command, argv, watch)
    except KeyboardInterrupt:  # (from an `except` clause of `_main`, or its first import)
        pass
    finally:
        if watch is not None:
            status = watch.end(status)  # (from here a Ctrl-C is only noted)
            if argv is not None:
                watch.restore()
    if argv is None and watch is not None and status == INTERRUPTED:
        # ended here, not by the interpreter's exit: stopped while importing, 1 `report` in
        # ~20 ended killed by SIGINT (-2), no traceback — strace: CPython's exit_sigint()
        # after finalizing, i.e. it took the KeyboardInterrupt ours caught for an unhandled
        # one; the command's pools and temporaries are closed by now
        _end_now(status)
    return status


def _main(args: list[str], command: str, argv: Sequence[str] | None,
          watch: Watch | None) -> int:
    from tfdbg_tui.commands.output import forget

    forget()  # (a caller of `main` may run several commands in one process)
    rest = args[1:] if args and args[0] in SUBCOMMANDS else args
    try:
        if not args or args[0] in ("-h", "--help", "help"):
            print(USAGE, end="")
            sys.stdout.flush()  # (inside the try: `--help > /dev/full` is one line)
            return 0 if args else 2
        if args[0] in ("-V", "--version"):
            print(_version())
            sys.stdout.flush()
            return 0
        if command in ONE_LOOK:
            from reader import one_pass

            with _no_cycle_collection(restore=argv is not None), one_pass():
                status = _dispatch(command, rest)
        else:
            status = _dispatch(command, rest)
        sys.stdout.flush()  # inside the try, so a reader that left (`… | head`) ends us quietly
        if argv is None and watch is not None:
            _end_now(watch.end(status))
        return status
    except KeyboardInterrupt:
        return INTERRUPTED
    except BrokenPipeError:  # the reader went away (`… | head`): end quietly, as grep does,
        _silence_stdout()  # with the status the command would have ended with
        from tfdbg_tui.commands.output import status_if_cut

        return status_if_cut()
    except OSError as exc:  # the output could not be written (stdout on a full disk)
        _silence_stdout()  # (the interpreter's last flush would fail again, as a traceback)
        where = f"{exc.filename}: " if exc.filename else "cannot write the output: "
        return _fail(f"{where}{exc.strerror or exc}")
    except ImportError as exc:  # a missing optional dependency, e.g. TensorFlow for `run`
        return _fail(str(exc))
    except MemoryError:  # a limit (ulimit -v, a container) hit by a logdir too big for it
        # said below, once the index its traceback holds is freed; freeing runs finalizers
        # (a reading generator's `finally`) that may hit the limit too: Python would print
        # that as "Exception ignored in …" on stderr, which is not news after this error
        hook, sys.unraisablehook = sys.unraisablehook, _ignore_unraisable
    try:
        gc.collect()  # (the cycles among the index's objects: the collector may be off)
    finally:
        sys.unraisablehook = hook
    return _fail("out of memory: the logdir needs more than this process may use "
                 "(about 3x the size of its files; see SECURITY.md)")


def _version() -> str:
    from reader._native import PURE_ENV, ingest
    from tfdbg_tui import __version__

    if ingest is not None:
        core = "compiled reader core"
    elif os.environ.get(PURE_ENV, "") not in ("", "0"):
        core = f"pure-Python reader: {PURE_ENV} is set"
    else:  # installed without a C compiler: same results, slower reading
        core = "pure-Python reader: the compiled core was not built; same results, slower"
    return f"tfdbg-tui {__version__} ({core})"


def _ignore_unraisable(_unraisable: object) -> None:
    """An error in a finalizer while an out-of-memory is being cleaned up: not reported."""


def _end_now(status: int) -> None:
    """End the process as a one-shot command finishes: its output is written and flushed,
    its files closed; what is left is the interpreter freeing every object one by one — for
    a diff of two million-row runs ~50 ms (a tenth of the command) of nothing anyone waits
    for. Only when run as a program (`argv` None): a caller of `main` keeps its process."""
    try:
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
    os._exit(status)


@contextmanager
def _no_cycle_collection(restore: bool) -> Iterator[None]:
    """Python's cyclic garbage collector off while a one-shot command runs (and, with
    `restore`, as it was after: a caller of `main`; run as a program, the process ends
    there, and turning it on would only start a last full collection). Why: such a command
    frees what it makes by reference counting (numpy columns, short-lived objects); what
    the collector would walk, again and again, is the hundreds of thousands of objects
    imports and botocore's service models make (a remote report paid ~0.07 s of CPU for
    it, medians of 15 runs each) and it would find nothing worth it. Peak memory of
    report, diff and export of the 1M-trace benchmark run: unchanged."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was and restore:
            gc.enable()


# commands that read a logdir once and end: one listing of a bucket folder answers all of
# it (`reader.one_pass`); the TUI and `open` follow a live run and list on every update
ONE_LOOK = frozenset({"report", "diff", "export", "index"})


def _dispatch(command: str, rest: list[str]) -> int:
    """Run one subcommand (imported lazily: `report` never pays for Textual)."""
    if command == "report":
        from tfdbg_tui.commands.report import main as report_main

        return report_main(rest)
    if command == "diff":
        from tfdbg_tui.commands.diff import main as diff_main

        return diff_main(rest)
    if command == "run":
        from tfdbg_tui.commands.run import main as run_main

        return run_main(rest)
    if command == "export":
        from tfdbg_tui.commands.export import main as export_main

        return export_main(rest)
    if command == "index":
        from tfdbg_tui.commands.index import main as index_main

        return index_main(rest)
    if command == "demo":
        from tfdbg_tui.commands.demo import main as demo_main

        return demo_main(rest)
    if command == "cache":
        from tfdbg_tui.commands.cache import main as cache_main

        return cache_main(rest)
    from tfdbg_tui.commands.open import main as open_main

    return open_main(rest)
