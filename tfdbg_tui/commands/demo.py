"""`tfdbg-tui demo`: record the built-in NaN example once, then open the debugger on it.

The recording runs `tfdbg-tui run` on `dumper.examples.nan_mlp` in a child process, so this
process (which hosts the TUI) never imports TensorFlow. It lands in the user's cache folder
(`$XDG_CACHE_HOME/tfdbg-tui/demo`, else `~/.cache/tfdbg-tui/demo`) and is reused afterwards;
a marker file written after a successful recording tells a complete logdir from a broken one.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import subprocess
import sys
from collections.abc import Sequence

from tfdbg_tui.core.sanitize import error_line, literal

USAGE = """\
usage: tfdbg-tui demo [--no-open] [--refresh]

Records the reference NaN example (an MLP whose cross entropy takes log(0)) into the cache
folder, once, and opens tfdbg-tui on it.
  --no-open   only record (if needed) and print the logdir
  --refresh   record again even if a recording exists
"""
DEMO_STEPS = "5"


def cache_dir() -> str:
    """Where the demo logdir lives: `$XDG_CACHE_HOME/tfdbg-tui/demo` or `~/.cache/...`."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "tfdbg-tui", "demo")


def _fail(message: str) -> int:
    print(error_line("tfdbg-tui: error", message), file=sys.stderr)
    return 2


def _mark_complete(marker: str) -> None:
    """Write the marker through a temporary of its own renamed over it: a symlink planted at
    its fixed name (a cache folder others can write to) is replaced, never written through —
    `open(marker, "w")` created a file wherever a dangling link there pointed."""
    from reader.io.safewrite import Replacement, open_folder

    dfd = open_folder(os.path.dirname(marker), [])
    try:
        new = Replacement(dfd, os.path.basename(marker))
        try:
            os.write(new.fd, (DEMO_STEPS + "\n").encode())
            new.commit()
        finally:
            new.discard()
    finally:
        os.close(dfd)


# TensorFlow's C++ start-up chatter, written before its log level is read (so
# TF_CPP_MIN_LOG_LEVEL cannot silence it): absl's notice and INFO lines ("I0000 …
# port.cc:153] oneDNN custom operations are on…", "cudart_stub.cc … no cuda drivers").
# Warnings and errors (W…/E…/F… lines, tracebacks) pass through.
_NOISE = re.compile(r"WARNING: All log messages before absl::InitializeLog\(\) is called"
                    r"|I\d{4} [\d:.]+ +\d+ [\w.]+:\d+\] ")


def record(logdir: str) -> int:
    """Record the example into `logdir` in a child process; returns its exit status.
    The child's stderr is passed on line by line, without TensorFlow's start-up chatter."""
    command = [
        sys.executable, "-m", "tfdbg_tui", "run", "--logdir", logdir, "--overwrite",
        "--", "-m", "dumper.examples.nan_mlp", "--steps", DEMO_STEPS,
    ]
    env = dict(os.environ)
    env.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # the demo user needs none of its C++ logs
    try:
        with subprocess.Popen(command, env=env, stderr=subprocess.PIPE, text=True,
                              errors="replace") as child:
            assert child.stderr is not None
            for line in child.stderr:
                if not _NOISE.match(line):
                    sys.stderr.write(line)
                    sys.stderr.flush()
            return child.wait()
    except OSError as exc:
        print(error_line("tfdbg-tui: error", f"cannot start {shlex.join(command)}: {exc}"),
              file=sys.stderr)
        return 2


def main(args: Sequence[str]) -> int:
    """Entry point of `tfdbg-tui demo`; returns the exit status."""
    opts = list(args)
    if "-h" in opts or "--help" in opts:
        print(USAGE, end="")
        return 0
    unknown = [a for a in opts if a not in ("--no-open", "--refresh")]
    if unknown:
        return _fail(f"unknown option {unknown[0]} (see tfdbg-tui demo --help)")
    logdir = cache_dir()
    marker = logdir + ".complete"
    if "--refresh" in opts or not os.path.exists(marker):
        if importlib.util.find_spec("tensorflow") is None:
            return _fail(
                "the demo records a TensorFlow program and TensorFlow is not installed; "
                "install it with: pip install 'tfdbg-tui[tf]' (or make install)"
            )
        try:
            os.makedirs(logdir, exist_ok=True)
            if os.path.exists(marker):
                os.remove(marker)
        except OSError as exc:
            return _fail(f"cannot use the cache folder {logdir}: {exc.strerror}")
        print(f"tfdbg-tui: recording the demo into {literal(logdir)} …", file=sys.stderr,
              flush=True)
        status = record(logdir)
        if status != 0:
            return _fail(f"recording the demo failed (exit status {status})")
        try:
            _mark_complete(marker)
        except OSError as exc:
            return _fail(f"cannot use the cache folder {logdir}: {exc.strerror or exc}")
    if "--no-open" in opts:
        print(literal(logdir))  # (a path holding control characters is shown escaped)
        return 0
    from tfdbg_tui.commands.open import main as open_main  # Textual only when opening

    return open_main([logdir])
