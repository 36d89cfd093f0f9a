"""Pairs of real runs for `diff`, written once per session by tests/programs/pairs/.

Ten short TensorFlow processes (the same small MLP in one-line variants, the migration
guide's TF1 and TF2 models) run two at a time, so the whole set costs about five of them.
"""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from compare.pairs_support import PAIRS
from support.paths import tf_env
from support.shared import build_once, shared_root

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
    proc = subprocess.run([sys.executable, str(PAIRS / program), str(logdir), mode,
                           *extra], env=tf_env(), capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        return f"{program} {mode} {' '.join(extra)}:\n{proc.stderr[-3000:]}"
    return None


@pytest.fixture(scope="session")
def pair_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """name → logdir of every run in RUNS."""
    pytest.importorskip("tensorflow")

    def build(root: Path) -> dict[str, str]:
        dirs = {name: root / name for name in RUNS}
        with ThreadPoolExecutor(2) as pool:
            failures = list(pool.map(
                lambda n: _run(RUNS[n][0], dirs[n], RUNS[n][1], RUNS[n][2]), RUNS))
        failed = [f for f in failures if f]
        if failed:
            pytest.fail("a pair program failed: " + failed[0])
        return {name: str(d) for name, d in dirs.items()}

    return build_once(shared_root(tmp_path_factory), "pairs", build)
