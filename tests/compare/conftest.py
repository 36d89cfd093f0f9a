"""Pairs of real runs for `diff`, written once per session by tests/programs/pairs/.

Ten short TensorFlow processes (the same small MLP in one-line variants, the migration
guide's TF1 and TF2 models), each forked from one that imported TensorFlow already
(support.tf_fork), one after another: the import was most of each one's CPU time.
"""

from __future__ import annotations

import pytest
from compare.pairs_support import PAIRS
from support.recordings import recorded_program

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


@pytest.fixture(scope="session")
def pair_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """name → logdir of every run in RUNS."""
    pytest.importorskip("tensorflow")

    # each kept for the next runs (support.recordings); base and base_again stay two runs
    return {name: recorded_program(tmp_path_factory, f"pairs-{name}", PAIRS / prog, mode,
                                   *extra)
            for name, (prog, mode, extra) in RUNS.items()}
