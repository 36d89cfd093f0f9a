"""Fixtures of the TUI tests that several files share."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import ROOT
from support.shared import build_once, shared_root
from support.tf_fork import run_forked


@pytest.fixture(scope="session")
def demo_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What `tfdbg-tui demo` records: the shipped example run through `tfdbg-tui run`
    (so its stacks hold the wrapper's frames, as a user's do), 5 steps; forked from one that
    imported TensorFlow (support.tf_fork: the same stacks as a fresh process records)."""
    pytest.importorskip("tensorflow")

    def build(d: Path) -> str:
        done = run_forked(["-m", "tfdbg_tui", "run", "--logdir", d, "--overwrite",
                           "--", "-m", "dumper.examples.nan_mlp", "--steps", "5"], cwd=ROOT)
        if done.status != 0:
            pytest.fail(f"recording the demo failed (status {done.status}):\n{done.err[-3000:]}")
        return str(d)

    return build_once(shared_root(tmp_path_factory), "demo-nan-mlp", build)
