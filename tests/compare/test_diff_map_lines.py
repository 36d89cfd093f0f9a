"""`diff --map FILE`: a rule that pairs nothing is said — one warning line naming the file
and the line, and which side matched no variable — and a line that cannot be a rule is an
error naming its line, exit 2 (held-out attacker check: both were ignored in silence, the
verdict then taken for one made with the user's pairing).

On the TF1/TF2 pair of tests/programs/pairs (variables w1, w2, … in A; dense_1/kernel,
dense_1_2/kernel, … in B: test_diff_steps) and, for a map of runs that do not train, on the
reference logdir (no TensorFlow)."""

from __future__ import annotations

from pathlib import Path

import pytest
from compare.pairs_support import run_diff
from support.tui import write_reference


def _warnings(err: str) -> list[str]:
    assert "Traceback" not in err, err
    return [line for line in err.splitlines() if line.strip()]


@pytest.mark.tf
def test_rules_that_pair_nothing_are_each_one_line(pair_runs: dict[str, str],
                                                   tmp_path: Path) -> None:
    mapping = tmp_path / "pairs.map"
    mapping.write_text("# A = B\n"
                       "^w1$ = ^dense_1/kernel$\n"  # obeyed: the pair the order gives anyway
                       "^nosuch$ = dense_1/kernel\n"  # A has no such variable
                       "\n"
                       "^w2$ = ^nosuch/kernel$\n")  # B has none
    code, out, err = run_diff(pair_runs["tf1"], pair_runs["tf2"], "--rtol", "1e-5",
                              "--map", str(mapping))
    assert code == 0 and out, err  # the verdict as without the two dead rules
    lines = _warnings(err)
    assert len(lines) == 2, err
    assert all(line.startswith("tfdbg-tui diff: warning: --map ") and str(mapping) in line
               and line.endswith("ignored") for line in lines), lines
    assert "line 3:" in lines[0] and "no variable of A" in lines[0], lines[0]
    assert "line 5:" in lines[1] and "no variable of B" in lines[1], lines[1]


@pytest.mark.tf
def test_a_map_whose_rules_all_pair_is_silent(pair_runs: dict[str, str],
                                              tmp_path: Path) -> None:
    mapping = tmp_path / "pairs.map"
    mapping.write_text("^w1$ = ^dense_1/kernel$\n")
    code, _, err = run_diff(pair_runs["tf1"], pair_runs["tf2"], "--rtol", "1e-5",
                            "--map", str(mapping))
    assert code == 0 and _warnings(err) == [], err


@pytest.mark.parametrize("line", ["w1 = dense/kernel = x", "w1 dense/kernel = x",
                                  "w1 == dense/kernel"])
def test_a_line_that_is_no_rule_is_an_error_naming_it(tmp_path: Path, line: str) -> None:
    """Typos that compiled as patterns before (`b = c` searched in B's names, `= dense…`
    too) and so matched nothing, silently."""
    ref = tmp_path / "ref"
    write_reference(ref)
    mapping = tmp_path / "pairs.map"
    mapping.write_text(f"# ok\n^w1$ = dense/kernel\n{line}\n")
    code, out, err = run_diff(str(ref), str(ref), "--map", str(mapping))
    (only,) = _warnings(err)
    assert code == 2 and not out, (code, err)
    assert str(mapping) in only and "line 3:" in only, only


def test_a_map_for_runs_that_do_not_train_is_said_unused(tmp_path: Path) -> None:
    ref = tmp_path / "ref"
    write_reference(ref)
    mapping = tmp_path / "pairs.map"
    mapping.write_text("^w1$ = dense/kernel\n")
    code, _, err = run_diff(str(ref), str(ref), "--map", str(mapping))
    (only,) = _warnings(err)
    assert code == 0, err
    assert str(mapping) in only and "not used" in only, only
