"""Build a session fixture's data once per test run, even when pytest-xdist runs workers.

`make test` runs the suite in two worker processes (CI has two cores). A session fixture is
per process, so without this each worker would run the same TensorFlow programs again. Here
the first worker to need a result builds it in a folder shared by all workers (the parent of
the workers' base temp folders, as pytest-xdist documents) under a file lock; the others wait
on the lock, then load the pickled result. Without xdist it is an ordinary per-session build.
"""

from __future__ import annotations

import os
import pickle
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest
from filelock import FileLock

T = TypeVar("T")


def worker_id() -> str:
    """'gw0', 'gw1', … under xdist; 'master' when the suite runs in one process."""
    return os.environ.get("PYTEST_XDIST_WORKER", "master")


def shared_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.getbasetemp()
    if worker_id() != "master":
        base = base.parent  # pytest-N/, shared by pytest-N/popen-gw0, popen-gw1, …
    root = base / "shared-builds"
    root.mkdir(exist_ok=True)
    return root


def build_once(root: Path, key: str, build: Callable[[Path], T]) -> T:
    """build(folder) for `key` once per run; every caller gets the same (unpickled) result.

    A build that raises leaves no result, so the next caller builds again and fails the same
    way (each test that needs it reports the failure, as with a plain session fixture)."""
    folder = root / key
    done = root / f"{key}.pickle"
    with FileLock(str(root / f"{key}.lock")):
        if done.exists():
            result: T = pickle.loads(done.read_bytes())
            return result
        if folder.exists():
            shutil.rmtree(folder)  # left by a build that failed
        folder.mkdir()
        result = build(folder)
        done.write_bytes(pickle.dumps(result))
        return result
