"""Helpers for the diff tests: where the pair programs are, and their marked lines."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from support.paths import PROGRAMS, ROOT, tf_env
from support.slowdown import guard

PAIRS = PROGRAMS / "pairs"


def marker_line(program: str, name: str) -> int:
    """1-based line number of the line marked `# line: <name>` in a pair program."""
    lines = (PAIRS / program).read_text().splitlines()
    hits = [i + 1 for i, line in enumerate(lines) if line.rstrip().endswith(f"# line: {name}")]
    assert len(hits) == 1, f"{program}: {len(hits)} lines marked {name!r}"
    return hits[0]


def run_diff(*args: str) -> tuple[int, str, str]:
    """`tfdbg-tui diff ARGS` in a fresh process: (exit status, stdout, stderr)."""
    proc = subprocess.run([sys.executable, "-m", "tfdbg_tui", "diff", *args], cwd=ROOT,
                          env=tf_env(), capture_output=True, text=True, timeout=guard(300))
    return proc.returncode, proc.stdout, proc.stderr


def diff_json(*args: str) -> tuple[int, dict[str, Any]]:
    """`tfdbg-tui diff --json ARGS`: (exit status, the parsed result)."""
    code, out, err = run_diff("--json", *args)
    assert code in (0, 1), err
    assert "Traceback" not in err, err
    return code, json.loads(out)
