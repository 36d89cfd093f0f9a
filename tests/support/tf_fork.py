"""Run a TensorFlow test program in a child forked from a process that imported TensorFlow.

Most of what a test program costs is `import tensorflow` (~3.5 s of CPU, 5-9 s of a busy
two-core machine's time); the programs themselves take well under a second. Each pytest
process starts one server (tests/programs/tf_forkserver.py) the first time it needs a
logdir, and every program then runs in a fresh fork of it: its own process, as before, only
without paying for the import again. Jobs run one at a time per pytest process (a lock);
`make test`'s two workers have a server each.
"""

from __future__ import annotations

import atexit
import json
import select
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from support.paths import PROGRAMS, tf_env
from support.slowdown import guard

# A program that runs longer than this is hung (they take seconds; the server's own start,
# the TensorFlow import, is part of the first job's time).
HANG_GUARD = guard(600.0)


class ForkServer:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[str] | None = None

    def _server(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, str(PROGRAMS / "tf_forkserver.py")],
                env={**tf_env(), "PYTHONHASHSEED": "0"},  # the zoo's programs need it fixed
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True)
        return self._proc

    def run(self, argv: list[str]) -> tuple[int, str]:
        """(exit status, stdout + stderr) of `python ARGV` run in a fork of the server."""
        with self._lock, tempfile.NamedTemporaryFile("r", suffix=".log") as log:
            proc = self._server()
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.write(json.dumps({"argv": [str(a) for a in argv],
                                         "log": log.name}) + "\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], HANG_GUARD)
            line = proc.stdout.readline() if ready else ""
            if not line:  # hung, or the server died: a new one for the next job
                self.close()
                why = f"hung for {HANG_GUARD:.0f} s" if not ready else "the fork server died"
                return -1, Path(log.name).read_text(errors="replace") + f"\n({why})"
            status = int(json.loads(line)["status"])
            return status, Path(log.name).read_text(errors="replace")

    def close(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            self._proc = None


_SERVER = ForkServer()
atexit.register(_SERVER.close)


def run_program(argv: list[str | Path]) -> tuple[int, str]:
    """`python ARGV` (a test program that imports TensorFlow) in a forked child: its exit
    status and output. The environment is `tf_env()`'s as of the server's start, with
    PYTHONHASHSEED=0."""
    return _SERVER.run([str(a) for a in argv])
