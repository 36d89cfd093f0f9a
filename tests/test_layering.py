"""Import hygiene: reader/ is UI- and TensorFlow-free; dumper/ never pulls in Textual.

Each import runs in a fresh interpreter so modules imported by other tests can't hide a leak.
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys

import pytest
from support.paths import ROOT, tf_env

import dumper
import reader

FORBIDDEN = {
    "reader": ("tensorflow", "textual", "rich", "dumper", "tfdbg_tui"),
    "dumper": ("textual",),
}


def all_modules(package: object) -> list[str]:
    name = package.__name__  # type: ignore[attr-defined]
    path = package.__path__  # type: ignore[attr-defined]
    mods = [name] + [m.name for m in pkgutil.walk_packages(path, name + ".")]
    # the TF-using parts of the dumper import tensorflow on purpose; textual is what's banned
    return mods


def imported_roots(modules: list[str]) -> set[str]:
    code = (
        "import importlib, json, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "print(json.dumps(sorted({n.split('.')[0] for n in sys.modules})))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=tf_env(), cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(proc.stdout.strip().splitlines()[-1]))


@pytest.mark.parametrize("package", [reader, dumper], ids=["reader", "dumper"])
def test_package_does_not_import_forbidden_modules(package: object) -> None:
    name = package.__name__  # type: ignore[attr-defined]
    mods = [m for m in all_modules(package) if ".examples" not in m]
    roots = imported_roots(mods)
    leaked = roots & set(FORBIDDEN[name])
    assert not leaked, f"{name} imports {sorted(leaked)}"


def test_forbidden_import_is_detected() -> None:
    """The check itself can fail: importing textual shows up in sys.modules."""
    assert "textual" in imported_roots(["textual"])


def test_tf_free_writer_does_not_import_tensorflow() -> None:
    roots = imported_roots(["dumper.writer"])
    assert "tensorflow" not in roots and "textual" not in roots
