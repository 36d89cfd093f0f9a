"""Session fixture of the zoo: every program under tests/programs/zoo/ run once, then reported.

Each program runs in its own Python process (TensorFlow's dumping state is per process),
two at a time, into its own temporary logdir; then `tfdbg-tui report --json` reads that
logdir in another process, as a user would run it.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
from zoo_support import ZOO, ZooRun, run_program


@pytest.fixture(scope="session")
def zoo_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, ZooRun]:
    """name → ZooRun for every zoo program (all run on first use, two at a time)."""
    pytest.importorskip("tensorflow")
    base = tmp_path_factory.mktemp("zoo")
    programs = sorted(ZOO.glob("*.py"))
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda p: run_program(p, base / p.stem), programs))
    return {r.program.stem: r for r in runs}
