"""Run a TensorFlow test program in a child forked from a process that imported TensorFlow.

Most of what a test program costs is `import tensorflow` (~3.5 s of CPU, 5-9 s of a busy
two-core machine's time); the programs themselves take well under a second. Each pytest
process starts one server (tests/programs/tf_forkserver.py) the first time it needs a
logdir, and every program then runs in a fresh fork of it: its own process, as before, only
without paying for the import again. Jobs run one at a time per pytest process (a lock);
each of `make test`'s workers has a server of its own.

The server runs from a .pyc compiled under the name `<frozen tf_forkserver>`, so the frames
under a program's outermost one in its recorded stacks are framework frames, as `python -m`'s
runpy frames are (see the server's docstring): `-m tfdbg_tui run … -- SCRIPT` records what
`python -m tfdbg_tui run` does, its wrapper frames recognized as such.
"""

from __future__ import annotations

import atexit
import json
import py_compile
import select
import shutil
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from support.paths import PROGRAMS, ROOT, tf_env
from support.slowdown import guard

# A program that runs longer than this is hung (they take seconds; the server's own start,
# the TensorFlow import, is part of the first job's time).
HANG_GUARD = guard(600.0)

SERVER = PROGRAMS / "tf_forkserver.py"
FROZEN_NAME = "<frozen tf_forkserver>"  # the name its code runs under (its docstring says why)


def _compiled() -> Path:
    """The server compiled to a .pyc whose code is named FROZEN_NAME (`python FILE.pyc` runs
    it as it is, so even its outermost frame carries that name)."""
    folder = Path(tempfile.mkdtemp(prefix="tf-forkserver-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    pyc = folder / "tf_forkserver.pyc"
    py_compile.compile(str(SERVER), cfile=str(pyc), dfile=FROZEN_NAME, doraise=True)
    return pyc


@dataclass
class Forked:
    """A finished forked program: exit status (negative: killed by that signal), stdout and
    stderr (stderr is empty when it was asked to go with stdout)."""

    status: int
    out: str
    err: str


class ForkServer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None

    def _server(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, str(_compiled())], cwd=ROOT,
                env={**tf_env(), "PYTHONHASHSEED": "0"},  # the zoo's programs need it fixed
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True)
        return self._proc

    def run(self, argv: list[str], *, cwd: Path | None = None,
            env: dict[str, str] | None = None, split: bool = False) -> Forked:
        """`python ARGV` run in a fork of the server (ARGV may start with -m MODULE)."""
        with (self._lock, tempfile.NamedTemporaryFile("r", suffix=".out") as log,
              tempfile.NamedTemporaryFile("r", suffix=".err") as err):
            proc = self._server()
            assert proc.stdin is not None and proc.stdout is not None
            job = {"argv": argv, "log": log.name, "err": err.name if split else None,
                   "cwd": str(cwd) if cwd is not None else None, "env": env or {}}
            proc.stdin.write(json.dumps(job) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], HANG_GUARD)
            line = proc.stdout.readline() if ready else ""
            out = Path(log.name).read_text(errors="replace")
            errors = Path(err.name).read_text(errors="replace") if split else ""
            if not line:  # hung, or the server died: a new one for the next job
                self.close()
                why = f"hung for {HANG_GUARD:.0f} s" if not ready else "the fork server died"
                return Forked(-1, out, errors + f"\n({why})")
            return Forked(int(json.loads(line)["status"]), out, errors)

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


_SERVER = ForkServer()
atexit.register(_SERVER.close)
_PAIR: list[ForkServer] = []


def two_servers() -> list[ForkServer]:
    """Two more fork servers of the process, started on first use: a corpus records two
    programs at a time (one per core), each without its own TensorFlow import (a program
    run as `python PROGRAM` cost ~5x more on a busy machine: the import was most of it)."""
    if not _PAIR:
        _PAIR.extend([ForkServer(), ForkServer()])
        for server in _PAIR:
            atexit.register(server.close)
    return _PAIR


def run_program(argv: list[str | Path]) -> tuple[int, str]:
    """`python ARGV` (a test program that imports TensorFlow) in a forked child: its exit
    status and output (stdout and stderr together). The environment is `tf_env()`'s as of
    the server's start, with PYTHONHASHSEED=0."""
    done = _SERVER.run([str(a) for a in argv])
    return done.status, done.out + done.err


def run_forked(argv: list[str | Path], *, cwd: Path | None = None,
               env: dict[str, str] | None = None) -> Forked:
    """`python ARGV` in a forked child, in `cwd` (default: the project's root) with `env`
    added to the server's environment: status, stdout and stderr apart. ARGV may be
    `-m MODULE ARG…` (e.g. `-m tfdbg_tui run …`)."""
    return _SERVER.run([str(a) for a in argv], cwd=cwd, env=env, split=True)
