"""The 18 migration pairs someone else wrote (`../shared/migration-pairs/`), scored by their
own checker — the measure of issue 29, run as its author runs it.

The pairs are built with their `build.sh` (TensorFlow from this interpreter) into a cache
outside the checkout, kept between runs: `build.sh` itself skips a logdir built from the same
programs, and the cache folder is per TensorFlow version. `check.py` then runs
`tfdbg-tui diff --json` on every pair and counts the oracle's steps with TensorFlow's own
`DebugDataReader`. Nothing here interprets the diff: a pair passes when `check.py` prints
`ok NAME`. The folder sits beside the checkout (CI lays a copy of `shared/` there); where it
is absent the tests say so and skip, since no file of this repository can stand in for it.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest
from filelock import FileLock
from support.paths import ROOT, tf_env

PAIRS_DIR = Path(os.environ.get("TFDBG_TUI_MIGRATION_PAIRS",
                                ROOT.parent / "shared" / "migration-pairs"))
CHECK = PAIRS_DIR / "check.py"


def _pair_names() -> list[str]:
    """The pair names, from check.py's own table (it imports only the standard library)."""
    if not CHECK.is_file():
        return ["(shared/migration-pairs not found)"]
    spec = importlib.util.spec_from_file_location("shared_migration_check", CHECK)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return [p[0] for p in module.PAIRS]


def _cache_root() -> Path:
    base = os.environ.get("TFDBG_TUI_TEST_CACHE") or Path.home() / ".cache" / "tfdbg-tui-tests"
    try:
        tf_version = metadata.version("tensorflow")
    except metadata.PackageNotFoundError:
        tf_version = "none"
    root = Path(base) / f"migration-pairs-tf{tf_version}"
    root.mkdir(parents=True, exist_ok=True)
    return root


@pytest.fixture(scope="session")
def checked() -> dict[str, str]:
    """NAME → check.py's line for that pair ('ok NAME: …' or 'FAIL NAME: …')."""
    if not CHECK.is_file():
        pytest.skip(f"{PAIRS_DIR} not found (the shared migration pairs live beside the "
                    "checkout; set TFDBG_TUI_MIGRATION_PAIRS to their folder)")
    pytest.importorskip("tensorflow")
    cache = _cache_root()
    env = dict(tf_env(), TFPY=sys.executable)
    with FileLock(str(cache / "build.lock")):  # xdist workers, or two checkouts at once
        built = subprocess.run(["bash", str(PAIRS_DIR / "build.sh"), str(cache)], env=env,
                               capture_output=True, text=True, timeout=3600)
    if built.returncode != 0:
        pytest.fail(f"build.sh failed ({built.returncode}):\n{built.stderr[-3000:]}")
    tui = Path(sys.executable).parent / "tfdbg-tui"
    proc = subprocess.run([sys.executable, str(CHECK), str(tui), str(cache)], env=env,
                          capture_output=True, text=True, timeout=3600)
    lines = proc.stdout.splitlines()
    out: dict[str, str] = {}
    for line in lines:
        verdict, _, rest = line.partition(" ")
        name = rest.split(":", 1)[0]
        if verdict in ("ok", "FAIL") and name:
            out[name] = line
    if not out:
        pytest.fail(f"check.py printed no verdict ({proc.returncode}):\n"
                    f"{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    return out


@pytest.mark.tf
@pytest.mark.parametrize("name", _pair_names())
def test_shared_migration_pair(checked: dict[str, str], name: str) -> None:
    line = checked.get(name)
    assert line is not None, f"check.py said nothing of {name}"
    assert line.startswith("ok "), line
