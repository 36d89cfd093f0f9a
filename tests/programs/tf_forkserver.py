"""Import TensorFlow once, then run test programs each in a forked child of this process.

    python tf_forkserver.pyc    (compiled and started by tests/support/tf_fork.py)

Jobs come on stdin, one JSON line each: {"argv": [SCRIPT, ARG…] or ["-m", MODULE, ARG…],
"log": PATH, and optionally "err": PATH (stderr apart; default: into "log"), "cwd": DIR,
"env": {NAME: VALUE}}; one line back per job: {"status": N}.

Importing TensorFlow costs ~3.5 s of CPU (5-9 s on a busy two-core machine) and the test
programs themselves well under a second, so a logdir per process made the import most of the
suite's TensorFlow time. A child forked after the import and before any op ran starts from
the same state a fresh `python SCRIPT ARG…` (or `python -m MODULE ARG…`) reaches after its
`import tensorflow`: no eager context, no dumping callback, no traced function (so no
AutoGraph cache shared between programs, unlike running them one after another in one
process). Each child runs SCRIPT (or MODULE) as `__main__` in a module of its own, with its
own stdout and stderr files, and ends as the interpreter ends (non-daemon threads joined,
atexit hooks run, output flushed).

The recorded stacks: this file is compiled under the name `<frozen tf_forkserver>` and run as
that .pyc, so what sits under the program's outermost frame in every stack is classified as
`python -m`'s own `<frozen runpy>` frames are (framework code, not the user's; TensorFlow
records the name under the cwd, `/work/…/<frozen tf_forkserver>`, which the reader's
framework patterns allow for).
A job `-m tfdbg_tui run … -- SCRIPT` therefore records the stacks `python -m tfdbg_tui run`
records: only framework frames before `tfdbg_tui/commands/run.py`'s, which the reader then
recognizes as the wrapper's start (reader.index.frames.wrapper_frames).
"""

from __future__ import annotations

import atexit
import builtins
import json
import os
import runpy
import sys
import threading
import traceback
import types

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

import tensorflow  # noqa: F401  (the import every child is spared)


def _redirect(log: str, err: str | None) -> None:
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    if err is None:
        os.dup2(fd, 2)
    else:
        efd = os.open(err, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(efd, 2)
        os.close(efd)
    os.close(fd)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)


def _main_module(file: str | None, spec: object | None) -> dict[str, object]:
    """A fresh `__main__`, installed in sys.modules, as the interpreter makes it."""
    module = types.ModuleType("__main__")
    module.__builtins__ = builtins  # type: ignore[attr-defined]
    if file is not None:
        module.__file__ = file
    module.__spec__ = spec  # type: ignore[assignment]
    module.__package__ = getattr(spec, "parent", None)
    sys.modules["__main__"] = module
    return module.__dict__


def _child(job: dict[str, object]) -> int:
    argv = [str(a) for a in job["argv"]]  # type: ignore[union-attr]
    _redirect(str(job["log"]), str(job["err"]) if job.get("err") else None)
    if job.get("cwd"):
        os.chdir(str(job["cwd"]))
    os.environ.update({str(k): str(v) for k, v in dict(job.get("env") or {}).items()})
    try:
        if argv[0] == "-m":  # as `python -m MODULE ARG…`: sys.path[0] is the cwd
            sys.path[0] = os.getcwd()
            sys.argv = argv[1:]
            _name, spec, code = runpy._get_module_details(argv[1])  # type: ignore[attr-defined]
            sys.argv[0] = spec.origin or argv[1]
            namespace = _main_module(spec.origin, spec)
        else:  # as `python SCRIPT ARG…`
            script = os.path.abspath(argv[0])
            sys.argv = argv
            sys.path[0] = os.path.dirname(script)
            with open(script, "rb") as f:
                code = compile(f.read(), script, "exec", dont_inherit=True)
            namespace = _main_module(script, None)
        exec(code, namespace)
        return 0
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            return (e.code or 0) & 0xFF
        print(e.code, file=sys.stderr)
        return 1
    except BaseException:
        traceback.print_exc()
        return 1


def _exit_as_python_does() -> None:
    """What the interpreter does at its end before the process goes: wait for non-daemon
    threads, run the atexit hooks (the program's, and those TensorFlow registered at its
    import, as in a fresh process; a program may leave flushing its dump to one), flush
    stdout and stderr. os._exit then ends the child without the server's own cleanup."""
    try:
        threading._shutdown()  # type: ignore[attr-defined]
    finally:
        try:
            atexit._run_exitfuncs()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()


def run(job: dict[str, object]) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            status = _child(job)
        finally:
            try:
                _exit_as_python_does()
            finally:
                os._exit(status)
    _, wait_status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(wait_status)


def main() -> None:
    for line in sys.stdin:
        status = run(json.loads(line))
        sys.stdout.write(json.dumps({"status": status}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
