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
def zoo_runs(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
             ) -> dict[str, ZooRun]:
    """name → ZooRun for the zoo programs the selected tests use (all run on first use, two
    at a time), so `-k <program>` runs only that program."""
    pytest.importorskip("tensorflow")
    base = tmp_path_factory.mktemp("zoo")
    wanted = {item.callspec.params["prog"].name for item in request.session.items
              if hasattr(item, "callspec") and "prog" in item.callspec.params
              and "zoo_runs" in getattr(item, "fixturenames", ())}
    programs = [p for p in sorted(ZOO.glob("*.py")) if p.stem in wanted]
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(lambda p: run_program(p, base / p.stem), programs))
    return {r.program.stem: r for r in runs}
