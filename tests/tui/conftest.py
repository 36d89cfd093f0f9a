"""Fixtures of the TUI tests that several files share."""

from __future__ import annotations

import pytest
from support.recordings import recorded_run


@pytest.fixture(scope="session")
def demo_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """What `tfdbg-tui demo` records: the shipped example run through `tfdbg-tui run`
    (so its stacks hold the wrapper's frames, as a user's do), 5 steps; forked from one that
    imported TensorFlow (support.tf_fork: the same stacks as a fresh process records); kept
    for the next runs (support.recordings: dumper/, which holds the example, is in its key)."""
    pytest.importorskip("tensorflow")
    return recorded_run(tmp_path_factory, "demo-nan-mlp", "-m", "dumper.examples.nan_mlp",
                        "--steps", 5)[0]
