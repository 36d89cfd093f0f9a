"""Import TensorFlow once, then run test programs each in a forked child of this process.

    python tf_forkserver.py    (jobs on stdin, one JSON line each: {"argv": [SCRIPT, ARG…],
                                "log": PATH}; one line back per job: {"status": N})

Importing TensorFlow costs ~3.5 s of CPU (5-9 s on a busy two-core machine) and the test
programs themselves well under a second, so a logdir per process made the import most of the
suite's TensorFlow time (tests/support/tf_fork.py). A child forked after the import and
before any op ran starts from the same state a fresh `python SCRIPT ARG…` reaches after its
`import tensorflow`: no eager context, no dumping callback, no traced function (so no
AutoGraph cache shared between programs, unlike running them one after another in one
process). Each child runs SCRIPT as `__main__` in a module of its own, with its stdout and
stderr in PATH. What differs from `python SCRIPT`: the frames of this file sit under the
program's outermost frame in every recorded stack (as runpy's do under `python -m`).
"""

from __future__ import annotations

import builtins
import json
import os
import sys
import traceback
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow  # noqa: F401  (the import every child is spared)


def _child(argv: list[str], log: str) -> int:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    script = os.path.abspath(argv[0])
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(script)  # as `python SCRIPT` sets it
    module = types.ModuleType("__main__")
    module.__file__ = script
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    try:
        with open(script, "rb") as f:
            code = compile(f.read(), script, "exec")
        exec(code, module.__dict__)
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return e.code or 0
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


def run(argv: list[str], log: str) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            status = _child(argv, log)
        finally:
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status)


def main() -> None:
    for line in sys.stdin:
        job = json.loads(line)
        status = run(job["argv"], job["log"])
        sys.stdout.write(json.dumps({"status": status}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
