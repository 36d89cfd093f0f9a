"""Import hygiene: reader/ is UI- and TensorFlow-free; dumper/ never pulls in Textual; no
module imports itself through others; columns are read by name only inside reader/.

Each import runs in a fresh interpreter so modules imported by other tests can't hide a leak.
The layer contracts themselves are import-linter's (pyproject.toml, `make lint`); these
checks look at what really gets imported, and at module-level cycles anywhere.
"""

from __future__ import annotations

import json
import pkgutil
import re
import subprocess
import sys
from pathlib import Path

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


def module_cycles(package: str) -> list[list[str]]:
    """Strongly connected groups of modules of `package` (each a cycle of imports)."""
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph(package, exclude_type_checking_imports=True)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph.find_modules_directly_imported_by(v):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return cycles


@pytest.mark.parametrize("package", ["reader", "dumper", "tfdbg_tui"])
def test_no_module_imports_itself_through_others(package: str) -> None:
    assert module_cycles(package) == []


def test_cycle_check_can_fail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The check sees a cycle made only of function-level imports (as report had)."""
    pkg = tmp_path / "cyclepkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("def f():\n    from cyclepkg import b\n")
    (pkg / "b.py").write_text("from cyclepkg import a\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module_cycles("cyclepkg") == [["cyclepkg.a", "cyclepkg.b"]]


STRING_COLUMN = re.compile(r"""\.col\(\s*["']""")


def test_columns_are_read_by_name_only_inside_the_reader() -> None:
    """Outside reader/ code uses the typed tables and queries (mypy checks them)."""
    offenders = []
    for top in ("tfdbg_tui", "dumper", "benchmarks"):
        for path in sorted((ROOT / top).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if STRING_COLUMN.search(line):
                    offenders.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert offenders == []
    assert STRING_COLUMN.search('t = logdir.traces.col("op_type")')  # the check can fail
