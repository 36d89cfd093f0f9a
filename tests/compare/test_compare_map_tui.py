"""`tfdbg-tui A --compare B --map FILE`: compare mode pairs variables as `diff --map` does
(issue 30, point 3: `diff` had the option, compare mode did not).

On the TF1/TF2 pair of tests/programs/pairs (A's variables w1, w2, …; B's dense_1/kernel,
dense_1_2/kernel, …): at rtol 1e-5 the two runs are equivalent as the tool pairs them; a map
pairing A's first kernel (4×8) with B's second (8×6) makes them diverge at step 0's variables
(test_diff_steps proves the same of `diff --map`). Through Textual's pilot: what the app
compared, the header's verdict the user reads, and the warning a rule that pairs nothing
gets. The errors of a bad map are `diff`'s, from the command line, before anything is read.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from support.paths import ROOT
from support.slowdown import WAIT, guard
from support.tui import record_notifications, settle, sync

from reader import DebugLogdir
from tfdbg_tui.commands.diff_map import read_map
from tfdbg_tui.core.compare import Tolerance
from tfdbg_tui.core.compare.user_map import CompareMap
from tfdbg_tui.ui.app import TfdbgApp

SIZE = (200, 50)


async def _compared_app(a: str, b: str, compare_map: CompareMap | None
                        ) -> tuple[list[tuple[str, str]], str, str, list[str]]:
    """Open A compared with B: (the variable pairs compared, the verdict, the header's
    verdict text, the notifications said)."""
    app = TfdbgApp(DebugLogdir(a), follow=False, compare_with=DebugLogdir(b),
                   tolerance=Tolerance(1e-5, 0.0), compare_map=compare_map)
    said = record_notifications(app)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await asyncio.wait_for(app.compared.wait(), WAIT)
        await settle(app, pilot)
        s = app.main
        assert s is not None and s.compare_view is not None, said
        c = s.compare_view.c
        sp = c.training.sp
        assert sp is not None
        return (list(sp.variables), c.verdict, s.compare_view.verdict_line().plain, said)


@pytest.mark.tf
@sync
async def test_compare_mode_obeys_the_map(pair_runs: dict[str, str], tmp_path: Path) -> None:
    a, b = pair_runs["tf1"], pair_runs["tf2"]
    pairs, verdict, _, said = await _compared_app(a, b, None)
    assert ("w1", "dense_1/kernel") in pairs and verdict == "equivalent", (pairs, said)
    mapping = tmp_path / "pairs.map"
    mapping.write_text("# A = B\n^w1$ = dense_1_2/kernel\n^nosuch$ = dense_1/kernel\n")
    pairs, verdict, header, said = await _compared_app(
        a, b, CompareMap(str(mapping), read_map(str(mapping))))
    assert ("w1", "dense_1_2/kernel") in pairs and ("w1", "dense_1/kernel") not in pairs
    assert verdict == "diverge" and "diverge" in header, (verdict, header)
    # the dead rule is said once, in diff's words, naming the file and the line
    dead = [m for m in said if "--map" in m]
    assert len(dead) == 1 and str(mapping) in dead[0] and "line 3:" in dead[0], said
    assert "no variable of A" in dead[0], dead


def _open(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "tfdbg_tui", *args], cwd=ROOT,
                          stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=guard(120))


@pytest.mark.parametrize("content", [None, "w1 dense/kernel\n", "w1( = x\n",
                                     "(" * 5000 + "a" + ")" * 5000 + " = b\n",
                                     "a{99999999999999999999} = b\n"],
                         ids=["missing", "no-rule", "bad-regex", "deep-nesting", "huge-repeat"])
def test_a_bad_map_is_diffs_one_line_error(tmp_path: Path, content: str | None) -> None:
    """Read before the logdirs (which do not exist here) and before the terminal check."""
    mapping = tmp_path / "pairs.map"
    if content is not None:
        mapping.write_text(content)
    proc = _open(str(tmp_path / "no-a"), "--compare", str(tmp_path / "no-b"),
                 "--map", str(mapping))
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and not proc.stdout, proc
    assert len(lines) == 1 and lines[0].startswith(f"tfdbg-tui: error: --map {mapping}: "), lines
    diff = subprocess.run([sys.executable, "-m", "tfdbg_tui", "diff", str(tmp_path / "no-a"),
                           str(tmp_path / "no-b"), "--map", str(mapping)], cwd=ROOT,
                          capture_output=True, text=True, timeout=guard(120))
    # the same reason as diff's, word for word
    assert diff.returncode == 2
    assert diff.stderr.split(": error: ", 1)[1] == proc.stderr.split(": error: ", 1)[1]


def test_map_without_compare_is_a_usage_error(tmp_path: Path) -> None:
    mapping = tmp_path / "pairs.map"
    mapping.write_text("a = b\n")
    proc = _open(str(tmp_path), "--map", str(mapping))
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc
    assert "--compare" in proc.stderr and "Traceback" not in proc.stderr
