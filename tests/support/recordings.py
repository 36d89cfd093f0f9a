"""Keep a TensorFlow program's recording (its logdir) from one test run to the next.

Recording is most of what the TensorFlow-backed tests cost (the zoo's ~50 programs, the
held-out NaN corpora, the edges: minutes of a two-core machine), yet a recording changes only
when what made it changes. So a recording is kept under ~/.cache/tfdbg-tui-tests/recordings
(or $TFDBG_TUI_TEST_CACHE/recordings), keyed as the migration corpora's are
(tests/compare/user_corpus.py): the program's bytes and those of the local modules it
imports, the code that records (dumper/, the `tfdbg-tui run` wrapper, the fork server),
the checkout's path (recorded stacks name the program's file) and the Python, TensorFlow,
Keras and numpy versions. Only the recording is kept: what the tests read from it
(`report --json`, the TUI) runs on every run, against today's reader.

A recording is made in a folder `NAME-KEY.building-PID` that is renamed to `NAME-KEY` once
whole, under a file lock per NAME (pytest-xdist's workers, and concurrent runs, wait for one
another); within a run it is shared through support.shared.build_once. A kept recording whose
files changed since (a test that wrote into it) is recorded again: its manifest of file
sizes and modification times is checked on every reuse. A recording whose program failed is
not kept (`keep` says which are good): the next run tries again.
`TFDBG_TUI_TEST_RECORD=1` records everything afresh (a cold run, as CI's first).
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import pickle
import shutil
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from support.paths import PROGRAMS, ROOT
from support.shared import build_once, shared_root

# What records, whichever program it records: TensorFlow's dumping is driven by dumper/ (the
# `tfdbg-tui run` wrapper's), the wrapper's own frames are in every stack it records, and the
# fork server runs every program (its frames and environment are part of each recording).
_RECORDERS = (
    *sorted((ROOT / "dumper").rglob("*.py")),
    ROOT / "tfdbg_tui" / "__main__.py",
    ROOT / "tfdbg_tui" / "cli.py",
    ROOT / "tfdbg_tui" / "commands" / "run.py",
    ROOT / "tfdbg_tui" / "commands" / "program.py",
    ROOT / "tfdbg_tui" / "core" / "sanitize.py",
    PROGRAMS / "tf_forkserver.py",
    ROOT / "tests" / "support" / "tf_fork.py",
    ROOT / "tests" / "support" / "paths.py",
)
_STALE_AFTER = 3600.0  # s: another key of a NAME is removed once unused this long


def _versions() -> str:
    out = [f"python={sys.version}", f"root={ROOT}"]
    for package in ("tensorflow", "keras", "numpy"):
        try:
            out.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            out.append(f"{package}=none")
    return " ".join(out)


def local_imports(program: Path) -> list[Path]:
    """The program and the modules it imports (transitively) that live beside it or in
    tests/programs: what a recording of it depends on besides TensorFlow and _RECORDERS."""
    seen: dict[Path, None] = {}
    todo = [program.resolve()]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen[path] = None
        try:
            tree = ast.parse(path.read_bytes())
        except (OSError, SyntaxError):
            continue  # the recording fails on it, and is not kept
        names: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
                names |= {f"{node.module}.{a.name}" for a in node.names}
        for name in names:
            parts = name.split(".")
            for base in (path.parent, program.resolve().parent, PROGRAMS):
                for candidate in (base.joinpath(*parts).with_suffix(".py"),
                                  base.joinpath(*parts, "__init__.py")):
                    if candidate.is_file():
                        todo.append(candidate.resolve())
    return list(seen)


def key_of(inputs: Iterable[Path], extra: str = "") -> str:
    """16 hex digits of the versions, `extra` (the arguments the program is given) and the
    bytes of every input and every recorder."""
    h = hashlib.sha256(_versions().encode() + b"\0" + extra.encode())
    for path in sorted({*(Path(p).resolve() for p in inputs), *_RECORDERS}):
        h.update(b"\0" + str(path).encode() + b"\0" + path.read_bytes())
    return h.hexdigest()[:16]


def cache_root() -> Path:
    base = os.environ.get("TFDBG_TUI_TEST_CACHE") or Path.home() / ".cache" / "tfdbg-tui-tests"
    root = Path(base) / "recordings"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _manifest(folder: Path) -> list[tuple[str, int, int]]:
    out = []
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            st = path.stat()
            out.append((str(path.relative_to(folder)), st.st_size, st.st_mtime_ns))
    return out


def _kept(final: Path) -> tuple[bool, Any]:
    """(True, meta) when `final` holds a whole recording nobody changed since."""
    try:
        meta = pickle.loads((final / "meta.pickle").read_bytes())
        manifest = json.loads((final / "manifest.json").read_text())
    except (OSError, ValueError, EOFError, pickle.UnpicklingError):
        return False, None
    if [list(m) for m in _manifest(final / "logdir")] != manifest:
        return False, None
    return True, meta


def _prune(root: Path, name: str, keep: Path) -> None:
    """Other keys of `name` unused for _STALE_AFTER (an older program, dumper, TensorFlow)
    and builds cut short."""
    now = time.time()
    for entry in root.glob(f"{name}-*"):
        if entry == keep or not entry.is_dir() or "-" in entry.name[len(name) + 1:].split(".")[0]:
            continue  # another name that starts with this one ("zoo-a" vs "zoo-a-b")
        try:
            if now - entry.stat().st_mtime > _STALE_AFTER:
                shutil.rmtree(entry, ignore_errors=True)
        except OSError:
            pass


def recorded(tmp_path_factory: pytest.TempPathFactory, name: str, inputs: Sequence[Path],
             record: Callable[[Path], Any], *, extra: str = "",
             keep: Callable[[Any], bool] = lambda meta: True) -> tuple[str, Any]:
    """(logdir, meta): `record(logdir)` writes the recording into `logdir` (an empty
    folder) and returns what the tests need of it besides (its status, its
    output: picklable, and free of the folder's name); made once per test run, and kept
    for the next runs while `inputs` (the program and what it imports: local_imports) and
    the recorders are unchanged and `keep(meta)`. A `record` that raises keeps nothing."""
    key = key_of(inputs, extra)

    def build(scratch: Path) -> tuple[str, Any]:
        root = cache_root()
        final = root / f"{name}-{key}"
        with FileLock(str(root / f"{name}.lock")):
            if os.environ.get("TFDBG_TUI_TEST_RECORD") != "1":
                ok, meta = _kept(final)
                if ok:
                    os.utime(final)  # in use: not pruned
                    return str(final / "logdir"), meta
            shutil.rmtree(final, ignore_errors=True)
            fresh = root / f"{name}-{key}.building-{os.getpid()}"
            shutil.rmtree(fresh, ignore_errors=True)
            (fresh / "logdir").mkdir(parents=True)
            try:
                meta = record(fresh / "logdir")
                if not keep(meta):  # for this run only
                    shutil.move(str(fresh / "logdir"), str(scratch / "logdir"))
                    return str(scratch / "logdir"), meta
                (fresh / "manifest.json").write_text(json.dumps(_manifest(fresh / "logdir")))
                (fresh / "meta.pickle").write_bytes(pickle.dumps(meta))
                os.replace(fresh, final)
            finally:
                shutil.rmtree(fresh, ignore_errors=True)
            _prune(root, name, final)
            return str(final / "logdir"), meta

    # by key too: two fixtures that chose one name for two recordings get one each
    result: tuple[str, Any] = build_once(shared_root(tmp_path_factory), f"rec-{name}-{key}",
                                         build)
    return result


def recorded_run(tmp_path_factory: pytest.TempPathFactory, name: str, program: Path | str,
                 *args: object, cwd: Path = ROOT, options: Sequence[str] = ("--overwrite",),
                 inputs: Sequence[Path] = ()) -> tuple[str, str]:
    """(logdir, the program's stdout) of `tfdbg-tui run --logdir LOGDIR OPTIONS -- PROGRAM
    ARGS` run in `cwd` (forked from a process that imported TensorFlow: support.tf_fork),
    kept as `recorded` keeps recordings (`inputs`: what else the program reads); the test
    fails with the program's stderr if it fails."""
    from support.tf_fork import run_forked

    argv = [*options, "--", str(program), *map(str, args)]

    def record(d: Path) -> str:
        done = run_forked(["-m", "tfdbg_tui", "run", "--logdir", d, *argv], cwd=cwd)
        if done.status != 0:
            pytest.fail(f"recording {name} failed ({done.status}):\n{done.err[-3000:]}")
        return done.out

    files = [*local_imports(Path(program)), *inputs] if Path(program).is_file() else inputs
    return recorded(tmp_path_factory, name, files, record, extra=f"run {cwd.resolve()} {argv}")


def recorded_program(tmp_path_factory: pytest.TempPathFactory, name: str, program: Path,
                     *args: object) -> str:
    """The logdir of `python PROGRAM LOGDIR ARGS` (a test program that records into its
    first argument; forked as support.tf_fork.run_program runs it), kept as `recorded`
    keeps recordings; the test fails with the program's output if it fails."""
    from support.tf_fork import run_program

    def record(d: Path) -> None:
        status, output = run_program([program, d, *map(str, args)])
        if status != 0:
            pytest.fail(f"{program.name} {list(map(str, args))} failed (status {status}):\n"
                        f"{output[-3000:]}")

    logdir, _ = recorded(tmp_path_factory, name, local_imports(program), record,
                         extra=f"program {list(map(str, args))}")
    return logdir
