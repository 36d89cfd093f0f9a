"""The README as a newcomer's page (issue 31, point 6): short, its links lead somewhere, and
its Python API example runs as written right after `make demo` (which runs `tfdbg-tui demo`:
the example is recorded into the user's cache folder, here a temporary one)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT, tf_env

README = ROOT / "README.md"
LINK = re.compile(r"\]\(([\w./-]+\.(?:md|svg|py|toml))(?:#[^)]*)?\)")  # relative file links


def test_readme_is_a_short_page_whose_links_exist() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 260
    assert "## The migration journey" in text
    for target in re.findall(LINK, text):
        if "://" not in target:
            assert (ROOT / target).exists(), target
    for page in (ROOT / "docs").glob("*.md"):  # the pages it links to link back correctly
        for target in re.findall(LINK, page.read_text()):
            if "://" not in target:
                assert (page.parent / target).exists(), (page.name, target)


def _python_api_example() -> str:
    text = README.read_text()
    block = text[text.index("## The Python API"):]
    block = block[:block.index("\n## ", 1)]
    return "\n".join(line[4:] for line in block.splitlines() if line.startswith("    "))


def test_python_api_example_runs_after_make_demo(tmp_path: Path) -> None:
    pytest.importorskip("tensorflow")
    pytest.importorskip("pandas")
    env = {**tf_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("TFDBG_TUI_CACHE_DIR", None)
    demo = subprocess.run([sys.executable, "-m", "tfdbg_tui", "demo", "--no-open"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert demo.returncode == 0, demo.stderr[-3000:]
    code = _python_api_example()
    assert "tfdbg_tui.open(" in code
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "Log produced" in run.stdout  # the demo's diagnosis, printed by the example
    assert os.path.isdir(tmp_path / "cache" / "tfdbg-tui" / "demo")
