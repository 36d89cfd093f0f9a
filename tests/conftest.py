"""Shared fixtures: real logdirs written by real TensorFlow programs, once per session.

Each logdir is written by a process of its own running a program under `tests/programs/`
(most forked from one that imported TensorFlow once: support.tf_fork), so TensorFlow's global
dumping state never leaks between logdirs or into the test process.
Helpers that are not fixtures live in `tests/support/` (imported as `support.*`).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from support.paths import PROGRAMS, ROOT, tf_env
from support.recordings import local_imports, recorded, recorded_program
from support.shared import build_once, shared_root, worker_id
from support.slowdown import SLOWDOWN

# No per-example deadline for property tests: a deadline is a timing assertion, and a busy
# machine missed it (test_scanner_round_trips_and_resumes: 914 ms for its first example at
# load ~4, 0.3 ms again — Hypothesis' FlakyFailure, a red suite). Speed is measured by
# `make bench`; a hang is caught by the suite's own guards.
settings.register_profile("tfdbg-tui", deadline=None)
settings.load_profile("tfdbg-tui")

# The suite starts a few thousand Python processes (`tfdbg-tui report …`, the TUI in a pty, the
# programs that record logdirs). With PYTHONDONTWRITEBYTECODE set in the environment (some
# shells and CI images set it) each of them compiled every module of ours from source again:
# ~0.4 s a process. The children write their bytecode (into the checkout's __pycache__,
# ignored by git) and the next ones read it.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

__all__ = ["PROGRAMS", "ROOT", "tf_env"]  # still importable from here for older test modules


def _base_timeout(config: pytest.Config) -> float | None:
    """pytest-timeout's own per-test limit: --timeout, else $PYTEST_TIMEOUT, else the ini's."""
    try:
        ini = config.getini("timeout")
    except ValueError:  # pytest-timeout not installed: no limit to scale
        return None
    for raw in (config.getoption("timeout", None), os.environ.get("PYTEST_TIMEOUT"), ini):
        if raw not in (None, ""):
            return float(raw)
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """pytest-timeout's limits (pyproject.toml's, and each `timeout` mark's) grow with
    TFDBG_TUI_TEST_SLOWDOWN, like every hang guard of the tests (tests/support/slowdown.py)."""
    if SLOWDOWN == 1.0:
        return
    base = _base_timeout(config)
    for item in items:
        mark = item.get_closest_marker("timeout")
        if mark is not None:
            args = list(mark.args)
            kwargs = dict(mark.kwargs)
            seconds = kwargs.pop("timeout", None) if not args else args.pop(0)
            if seconds:
                item.add_marker(pytest.mark.timeout(float(seconds) * SLOWDOWN, *args, **kwargs),
                                append=False)
        elif base:
            item.add_marker(pytest.mark.timeout(base * SLOWDOWN), append=False)


@pytest.fixture(scope="session", autouse=True)
def _private_index_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Index caches written by the commands under test go to a temporary folder, not to the
    user's ~/.cache (child processes inherit it)."""
    os.environ["TFDBG_TUI_CACHE_DIR"] = str(tmp_path_factory.mktemp("index-cache"))


@pytest.fixture(scope="session")
def make_tf_logdir(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., str]:
    """Factory: make_tf_logdir(kind, mode="FULL_HEALTH") → path of a logdir TF wrote.

    Kinds (see tests/programs/tf_program.py): eager, function, nested, keras, mlp (the
    reference NaN case), nan_graph. Results are made once per run and kept for the next
    (support.recordings).
    """
    pytest.importorskip("tensorflow")

    def make(kind: str, mode: str = "FULL_HEALTH", buffer: int = -1) -> str:
        return recorded_program(tmp_path_factory, f"tf-{kind}-{mode.lower()}-{buffer}",
                                PROGRAMS / "tf_program.py", mode, kind, "--buffer", buffer)

    return make


@pytest.fixture(scope="session")
def reference_logdir(make_tf_logdir: Callable[..., str]) -> str:
    """The reference bug (docs/format.md): hand-written cross entropy, Log produces −∞."""
    return make_tf_logdir("mlp", "FULL_HEALTH")


@pytest.fixture(scope="session")
def values_logdir(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Path of a FULL_TENSOR logdir with float/int/bool/string/rank-4/10M-element tensors
    (values_program.py in a child forked from one that imported TensorFlow: support.tf_fork)."""
    pytest.importorskip("tensorflow")
    return recorded_program(tmp_path_factory, "values-full-tensor",
                            PROGRAMS / "values_program.py")


@pytest.fixture(scope="session")
def _empty_config_home(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("config-home"))


# Ctrl-C live, as in a user's terminal, for this process and every command it starts. A
# suite started in the background of a non-interactive shell (`make test &` in a script, a
# CI step) runs with SIGINT ignored (POSIX), every child inherits that through fork and exec,
# and a Python started so never installs its KeyboardInterrupt: the tests that press Ctrl-C
# (tests/hostile/test_worker_kill_points.py's *-INT cases) then saw `report` read on to exit
# 1 and `diff` to 0 instead of 130 — whatever the load. A handler, unlike SIG_IGN, is reset
# to the default action at exec, so the commands start as a terminal starts them.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# A diagnosis that raises on unexpected data is shown as "diagnosis failed: …" to users; in
# the tests it must fail loudly instead (reader.diagnosis re-raises under this variable), for
# session fixtures too (the zoo's `report` runs). The hostile suites see what users see.
os.environ["TFDBG_TUI_STRICT"] = "1"


@pytest.fixture(autouse=True)
def _strict_diagnosis(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if "hostile" in request.node.path.parts:
        monkeypatch.delenv("TFDBG_TUI_STRICT", raising=False)
    else:
        monkeypatch.setenv("TFDBG_TUI_STRICT", "1")


@pytest.fixture(autouse=True)
def _no_user_config(_empty_config_home: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests never read the user's own configuration (a keymap would rebind their keys)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", _empty_config_home)


@pytest.fixture(scope="session")
def zoo_runs(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
             ) -> dict[str, Any]:
    """name → ZooRun (tests/diagnosis/zoo_support.py) for the zoo programs the selected tests
    use: each program under tests/programs/zoo/ runs in its own Python process (TensorFlow's
    dumping state is per process), two at a time, into its own logdir, then `tfdbg-tui report
    --json` reads it as a user would. Shared by the report's zoo test (tests/diagnosis) and
    the TUI's (tests/tui), so a full run runs each program once; `-k <program>` runs only it.
    The recordings are kept for the next runs (support.recordings); the reports are not."""
    pytest.importorskip("tensorflow")
    from diagnosis.zoo_support import ZOO, record_program, report_on

    root = shared_root(tmp_path_factory)
    wanted = {item.callspec.params["prog"].name for item in request.session.items
              if hasattr(item, "callspec") and "prog" in item.callspec.params
              and "zoo_runs" in getattr(item, "fixturenames", ())}
    programs = [p for p in sorted(ZOO.glob("*.py")) if p.stem in wanted]
    if worker_id() == "master":
        threads = 2
    else:  # the workers build from both ends and the middle, one program at a time each
        threads = 1
        if worker_id() == "gw1":
            programs.reverse()
        elif worker_id() != "gw0":
            half = len(programs) // 2
            programs = programs[half:] + programs[:half]

    def record(p: Path) -> tuple[str, Any]:
        return recorded(tmp_path_factory, f"zoo-{p.stem}", local_imports(p),
                        lambda d: record_program(p, d), extra="zoo", keep=lambda r: r[0] == 0)

    with ThreadPoolExecutor(max_workers=threads) as pool:
        recordings = list(pool.map(record, programs))

    # the reports in this thread, one at a time (support.report_run), once per test run
    def report(p: Path, rec: tuple[str, Any]) -> Any:
        return build_once(root, f"zoo-{p.stem}", lambda _: report_on(p, Path(rec[0]), rec[1]))

    runs = [report(p, rec) for p, rec in zip(programs, recordings, strict=True)]
    return {r.program.stem: r for r in runs}
