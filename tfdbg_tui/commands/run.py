"""`tfdbg-tui run`: record an unmodified TensorFlow program into a tfdbg2 logdir.

The program runs in this process through `runpy`, exactly as `python SCRIPT.py ARGS` or
`python -m MODULE ARGS` would run it: `sys.argv`, `sys.path[0]` and `__main__` as it expects,
its output untouched, its traceback printed as Python prints it, its exit status passed on
(and death by SIGINT/SIGTERM re-raised). Dumping is switched on first with `dumper.enable`,
and closed before the process ends in every one of those cases. TensorFlow is imported only
by `dumper.enable`, i.e. after the arguments were checked.
"""

from __future__ import annotations

import builtins
import contextlib
import importlib.util
import os
import runpy
import shlex
import signal
import sys
import types
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.machinery import ModuleSpec
from types import TracebackType

from tfdbg_tui.commands.program import ProgramError, Script, load
from tfdbg_tui.core.sanitize import literal

DEFAULT_LOGDIR = "/tmp/tfdbg2_logdir"
STOPPED_AT_NAN_STATUS = 3

USAGE = """\
usage: tfdbg-tui run [--logdir DIR] [--mode MODE] [--buffer N] [--op-regex RE]
                     [--overwrite] [--stop-at-nan] -- SCRIPT.py ARGS | -m MODULE ARGS

Runs a TensorFlow program with tfdbg2 dumping on (nothing to change in the program).
  --logdir DIR     where to write (default /tmp/tfdbg2_logdir)
  --mode MODE      NO_TENSOR, CURT_HEALTH, CONCISE_HEALTH, FULL_HEALTH (default), SHAPE,
                   FULL_TENSOR
  --buffer N       keep only the last N executions/traces (default -1: keep everything)
  --op-regex RE    record only ops whose type matches RE (re.match)
  --overwrite      replace a run already in DIR
  --stop-at-nan    stop the program right after the first NaN/∞ is recorded (exit status 3;
                   a program that catches the stop ends at its next TensorFlow op)
"""


class _UsageError(Exception):
    pass


@dataclass
class Options:
    """What the command line asked for."""

    logdir: str = DEFAULT_LOGDIR
    mode: str = "FULL_HEALTH"
    buffer: int = -1
    op_regex: str | None = None
    overwrite: bool = False
    stop_at_nan: bool = False
    module: str | None = None
    script: str | None = None
    program_args: list[str] = field(default_factory=list)


_VALUE_OPTIONS = ("--logdir", "--mode", "--buffer", "--op-regex")


def parse(args: Sequence[str]) -> Options:
    """Parse `run`'s arguments; raises _UsageError with a one-line message."""
    opts = Options()
    rest = list(args)
    while rest:
        arg = rest.pop(0)
        if arg == "--":
            break
        name, eq, inline = arg.partition("=")
        if name in _VALUE_OPTIONS:
            if not eq:
                if not rest:
                    raise _UsageError(f"{name} needs a value")
                inline = rest.pop(0)
            if name == "--logdir":
                opts.logdir = inline
            elif name == "--mode":
                opts.mode = inline
            elif name == "--op-regex":
                opts.op_regex = inline
            else:
                try:
                    opts.buffer = int(inline)
                except ValueError:
                    raise _UsageError(f"--buffer needs an integer, not {inline!r}") from None
        elif arg == "--overwrite":
            opts.overwrite = True
        elif arg == "--stop-at-nan":
            opts.stop_at_nan = True
        elif arg.startswith("-") and arg != "-m":
            raise _UsageError(f"unknown option {arg} (the program goes after --)")
        else:
            rest.insert(0, arg)
            break
    if rest and os.path.basename(rest[0]).startswith("python") and not rest[0].endswith(".py"):
        rest.pop(0)  # `-- python train.py`: the interpreter is us
    if not rest:
        raise _UsageError("no program to run; give SCRIPT.py ARGS or -m MODULE ARGS after --")
    if rest[0] == "-m":
        if len(rest) < 2:
            raise _UsageError("-m needs a module name")
        opts.module, opts.program_args = rest[1], rest[2:]
    elif rest[0].startswith("-"):
        raise _UsageError(f"interpreter option {rest[0]} is not supported; only -m MODULE is")
    else:
        opts.script, opts.program_args = rest[0], rest[1:]
    return opts


def _fail(message: str) -> int:
    from tfdbg_tui.core.sanitize import error_line

    print(error_line("tfdbg-tui: error", message), file=sys.stderr)
    return 2


def _size(logdir: str) -> str:
    from dumper.logdir import existing_runs

    total = sum(os.path.getsize(p) for p in existing_runs(logdir) if os.path.isfile(p))
    return f"{total / 1e6:.1f} MB" if total >= 100_000 else f"{total / 1e3:.1f} KB"


def _disk_full(logdir: str) -> str | None:
    """Why the dump may end early, or None. TensorFlow's writer logs a failed write and goes
    on (a full disk raised nothing): without this, a run on a full disk said "dump written
    (0.1 KB)" and left the user a logdir missing everything after the first records."""
    from dumper.logdir import disk_full

    free = disk_full(logdir)
    if free is None:
        return None
    return (f"tfdbg-tui: warning: the disk holding {logdir} is full ({free // 1024} KiB "
            "left): TensorFlow could not write all of the dump, which may end early; free "
            "some space and record again")


def _announce(logdir: str, mode: str) -> None:
    """Say where the data is and how to open it (stderr: the program's stdout stays clean)."""
    full = _disk_full(logdir)
    shown = literal(logdir)  # (a path holding control characters: escaped, never raw)
    print(
        f"tfdbg-tui: {mode} dump {'(incomplete) ' if full else ''}written to {shown} "
        f"({_size(logdir)})\n"
        + (f"{literal(full)}\n" if full else "")
        + f"tfdbg-tui: open it with: tfdbg-tui "
        f"{shlex.quote(logdir) if shown == logdir else shown}",
        file=sys.stderr,
        flush=True,
    )


def _end_swallowed_stop(message: str, logdir: str, mode: str) -> None:
    """The program caught `StoppedAtNaN` and ran another TensorFlow op: end it here.

    The dump was closed at the stop; what the program does after it is not recorded, and
    raising again would only be caught again. Its own cleanup does not run (os._exit).
    """
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
    print(f"tfdbg-tui: {literal(message)} (the program caught the stop and went on; ended at "
          "its next TensorFlow op)", file=sys.stderr, flush=True)
    _announce(logdir, mode)
    os._exit(STOPPED_AT_NAN_STATUS)


def _user_traceback(tb: TracebackType | None) -> TracebackType | None:
    """Drop our own frames (this module, runpy) from the top of the program's traceback."""
    ours = {os.path.abspath(__file__), os.path.abspath(runpy.__file__)}
    while tb is not None and os.path.abspath(tb.tb_frame.f_code.co_filename) in ours:
        tb = tb.tb_next
    return tb


def _exit_status(code: object) -> int:
    """The status `sys.exit(code)` gives, as Python computes it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _check_program(opts: Options) -> tuple[str | None, Script | None]:
    """A one-line problem with the program to run (or None) and the script checked and
    compiled (`commands.program`); before dumping starts, so before TensorFlow loads."""
    if opts.script is not None:
        try:
            return None, load(opts.script)
        except ProgramError as exc:
            return str(exc), None
    assert opts.module is not None
    # looked up where `python -m` looks (and `_run_program` runs it): from the working
    # directory first — the console script's sys.path[0] is its own folder (.venv/bin)
    sys.path[0] = os.getcwd()
    try:
        found = importlib.util.find_spec(opts.module)
    except (ImportError, ValueError) as exc:
        return f"cannot find module {opts.module!r}: {exc}", None
    if found is None:
        return f"no module named {opts.module!r}", None
    return None, None


def _main_module(file: str | None, spec: ModuleSpec | None) -> dict[str, object]:
    """A fresh `__main__` namespace, installed in sys.modules, as the interpreter makes it."""
    module = types.ModuleType("__main__")
    module.__dict__.update(
        __file__=file,
        __cached__=None,
        __loader__=spec.loader if spec is not None else None,
        __spec__=spec,
        __package__=spec.parent if spec is not None else None,
        __builtins__=builtins,
    )
    if file is None:
        del module.__dict__["__file__"]
    sys.modules["__main__"] = module
    return module.__dict__


def _run_program(opts: Options, script: Script | None) -> None:
    """Execute the program the way `python SCRIPT` / `python -m MODULE` would.

    We compile and exec the code ourselves instead of calling runpy.run_path/run_module, so
    no `<frozen runpy>` frames sit under every recorded stack (TensorFlow would also warn
    that it cannot read their source).
    """
    if script is not None:
        sys.argv = [script.path, *opts.program_args]
        path = os.path.abspath(script.path)
        if script.code is None:  # a directory or zip archive with __main__.py
            sys.path[0] = path
            runpy.run_path(script.path, run_name="__main__")
            return
        sys.path[0] = os.path.dirname(path)
        code = script.code  # (compiled by `_check_program`)
        namespace = _main_module(path, None)
    else:
        assert opts.module is not None
        sys.argv = [opts.module, *opts.program_args]
        sys.path[0] = os.getcwd()
        get_details = getattr(runpy, "_get_module_details", None)
        if get_details is None:  # a future Python without it: runpy's frames it is
            runpy.run_module(opts.module, run_name="__main__", alter_sys=True)
            return
        _name, spec, code = get_details(opts.module)
        sys.argv[0] = spec.origin or opts.module
        namespace = _main_module(spec.origin, spec)
    exec(code, namespace)


def main(args: Sequence[str]) -> int:
    """Entry point of `tfdbg-tui run`; returns the exit status (the program's own)."""
    if args and args[0] in ("-h", "--help"):
        print(USAGE, end="")
        return 0
    try:
        opts = parse(args)
    except _UsageError as exc:
        return _fail(str(exc))
    problem, script = _check_program(opts)
    if problem:
        return _fail(problem)

    import dumper
    from dumper import core

    try:
        dump = dumper.enable(
            opts.logdir,
            mode=opts.mode,
            buffer=opts.buffer,
            op_regex=opts.op_regex,
            overwrite=opts.overwrite,
            stop_at_nan=opts.stop_at_nan,
        )
    except dumper.DumperError as exc:
        return _fail(str(exc).replace("overwrite=True", "--overwrite"))
    logdir, mode = dump.logdir, dump.mode
    core.signal_hooks.append(lambda signum: _announce(logdir, mode))
    if opts.stop_at_nan:
        dump.enforce_stop(lambda message: _end_swallowed_stop(message, logdir, mode))

    status = 0
    interrupted = False
    stop_shown = False
    ours = os.getpid()
    try:
        _run_program(opts, script)
    except SystemExit as exc:
        status = _exit_status(exc.code)
    except dumper.StoppedAtNaN as exc:
        dump.enforce_stop(None)
        dumper.disable()
        print(f"tfdbg-tui: {literal(str(exc))}", file=sys.stderr)  # (op names: the program's)
        status = STOPPED_AT_NAN_STATUS
        stop_shown = True
    except BaseException as exc:  # the program's own error: show it as Python would
        dumper.disable()
        interrupted = isinstance(exc, KeyboardInterrupt)
        tb = _user_traceback(exc.__traceback__)
        sys.excepthook(type(exc), exc.with_traceback(tb), tb)
        status = 1
    finally:
        dumper.disable()
    if os.getpid() != ours:  # a child the program forked ran to its end: not recorded
        return status
    dump.enforce_stop(None)
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    if dump.stopped is not None and not stop_shown:
        print(f"tfdbg-tui: {literal(str(dump.stopped))} (the program caught the stop and ran "
              "on to its end, unrecorded)", file=sys.stderr)
        status = STOPPED_AT_NAN_STATUS
    _announce(logdir, mode)
    if interrupted:  # end as an uncaught Ctrl-C ends Python: killed by SIGINT
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        return 130
    return status
