"""Pairs of real runs for `diff`, written once per session by tests/programs/pairs/.

Ten short TensorFlow processes (the same small MLP in one-line variants, the migration
guide's TF1 and TF2 models), each forked from one that imported TensorFlow already
(support.tf_fork), one after another: the import was most of each one's CPU time.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from compare.pairs_support import PAIRS
from support.shared import build_once, shared_root
from support.tf_fork import run_program

# name → (program, mode, extra arguments)
RUNS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "base": ("mlp.py", "FULL_TENSOR", ("base",)),
    "base_again": ("mlp.py", "FULL_TENSOR", ("base",)),
    "relu6": ("mlp.py", "FULL_TENSOR", ("relu6",)),
    "epsilon": ("mlp.py", "FULL_TENSOR", ("epsilon",)),
    "nobias": ("mlp.py", "FULL_TENSOR", ("nobias",)),
    "base_health": ("mlp.py", "FULL_HEALTH", ("base",)),
    "nan_health": ("mlp.py", "FULL_HEALTH", ("nan",)),
    "tf1": ("migration_tf1.py", "FULL_TENSOR", ()),
    "tf2": ("migration_tf2.py", "FULL_TENSOR", ()),
    "tf2_perturbed": ("migration_tf2.py", "FULL_TENSOR", ("--perturb",)),
}


def _run(program: str, logdir: Path, mode: str, extra: tuple[str, ...]) -> str | None:
    """Run one program; its stderr tail if it failed, else None."""
    status, output = run_program([PAIRS / program, logdir, mode, *extra])
    if status != 0:
        return f"{program} {mode} {' '.join(extra)}:\n{output[-3000:]}"
    return None


@pytest.fixture(scope="session")
def pair_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """name → logdir of every run in RUNS."""
    pytest.importorskip("tensorflow")

    def build(root: Path) -> dict[str, str]:
        dirs = {name: root / name for name in RUNS}
        results = [_run(prog, dirs[n], mode, extra) for n, (prog, mode, extra) in RUNS.items()]
        failed = [f for f in results if f]
        if failed:
            pytest.fail("a pair program failed: " + failed[0])
        return {name: str(d) for name, d in dirs.items()}

    return build_once(shared_root(tmp_path_factory), "pairs", build)
