"""A program folder's helper module loaded by its path, under a name of its own.

Several folders of tests/programs keep their numpy model in a `common.py` (the programs
import it by that name when they run as scripts). Tests of two such folders put in one
process by xdist would otherwise share `sys.modules["common"]`: the second test gets the
first folder's module (ImportError, or worse, the wrong model)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def module_at(path: Path) -> ModuleType:
    """`path` imported as `<folder>_<stem>` (once per process), with its folder on sys.path
    while it loads, for the imports it makes of its neighbours."""
    name = f"{path.parent.name}_{path.stem}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None, path
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(path.parent))
    return module
