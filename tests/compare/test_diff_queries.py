"""What the TUI's compare column will ask (per-row status, next divergence), the alignment
budget on real runs, and `diff`'s bad-input handling."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from compare.pairs_support import run_diff

from reader import EAGER, GRAPH, open_logdir
from tfdbg_tui.core.compare import DIFFERENT, EQUAL, UNMATCHED, Tolerance, compare

pytestmark = pytest.mark.tf


def test_row_status_partner_and_next_divergence(pair_runs: dict[str, str]) -> None:
    A, B = open_logdir(pair_runs["base"]), open_logdir(pair_runs["nobias"])
    c = compare(A, B)
    status = c.row_status("a", GRAPH)
    assert len(status) == len(A.traces)
    names = np.array([A.op_name_of_trace(i) for i in range(len(A.traces))])
    # the bias read has no counterpart in B — but the initial bias, a trained variable B
    # lacks, is a divergence (issue 18), shown beside B's kernel; its later reads stay
    # unmatched. The first step's first MatMul is untouched (its weights train differently
    # after that)
    bias_reads = status[names == "BiasAdd/ReadVariableOp"]
    assert bias_reads[0] == DIFFERENT and (bias_reads[1:] == UNMATCHED).all()
    # step 0's first MatMul is equal or, when B's MatMul is the layer output paired with A's
    # bias add (issue 29: one layer per user line), left without a partner — never different
    mm = status[names == "MatMul"].tolist()
    assert mm[0] in (EQUAL, UNMATCHED) and mm[1:] in ([DIFFERENT, DIFFERENT],
                                                       [UNMATCHED, UNMATCHED]), mm
    assert (status[names == "Relu"] == DIFFERENT).all()
    bias_add = np.flatnonzero(names == "BiasAdd")
    assert (status[bias_add] == DIFFERENT).all()
    # the dropped BiasAdd is compared with what B's Relu reads instead: B's MatMul
    partner = c.partner_pair("a", GRAPH)[bias_add[0]]
    assert B.op_name_of_trace(int(c.pairs.b_row[partner])) == "MatMul"
    # next divergence: the earliest differing row after a given one, then the one after it
    first = c.next_divergence("a", GRAPH, -1)
    assert first == int(np.flatnonzero(names == "BiasAdd/ReadVariableOp")[0])
    assert c.next_divergence("a", GRAPH, first) == int(np.flatnonzero(status == DIFFERENT)[1])
    assert c.next_divergence("a", GRAPH, len(A.traces)) is None
    # counts agree with the per-row view (B has one parameter update fewer, too)
    unmatched = sum(int(np.count_nonzero(c.row_status("a", k) == UNMATCHED))
                    for k in (GRAPH, EAGER))
    assert c.unmatched("a") == unmatched > int(np.count_nonzero(
        names == "BiasAdd/ReadVariableOp"))


def test_budget_cap_is_reported(pair_runs: dict[str, str]) -> None:
    A, B = open_logdir(pair_runs["tf1"]), open_logdir(pair_runs["tf2"])
    c = compare(A, B, Tolerance(rtol=1e-5), budget_tokens=20)
    assert any("budget of 20 tokens" in n for n in c.notes)
    full = compare(A, B, Tolerance(rtol=1e-5))
    assert not full.notes and full.compared > c.compared


def test_bad_input_is_one_line_and_status_2(tmp_path: Path, pair_runs: dict[str, str]) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    a_file = tmp_path / "file"
    a_file.write_text("not a logdir")
    good = pair_runs["base"]
    for args in ([str(tmp_path / "missing"), good], [good, str(empty)], [str(a_file), good],
                 [good, good, "--rtol", "-1"], [good, good, "--atol", "nan"],
                 [good, good, "--limit", "x"], [good], [good, good, "--run-a", "nosuchrun"]):
        code, out, err = run_diff(*args)
        assert code == 2, (args, out, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (args, err)
        assert err.startswith("tfdbg-tui diff: error:"), err


def test_a_reader_that_leaves_early_gets_no_traceback(pair_runs: dict[str, str]) -> None:
    """`tfdbg-tui diff … --json | head -c 200`: more output than a pipe holds, then EPIPE."""
    import subprocess
    import sys

    from support.paths import ROOT, tf_env

    args = [sys.executable, "-m", "tfdbg_tui", "diff", "--json", "--limit", "1000",
            pair_runs["tf1"], pair_runs["tf2_perturbed"]]
    full = subprocess.run(args, cwd=ROOT, env=tf_env(), capture_output=True, timeout=300)
    assert len(full.stdout) > 1 << 17  # a pipe holds 64 KiB: the writer must hit EPIPE
    proc = subprocess.Popen(args, cwd=ROOT, env=tf_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(200)
    proc.stdout.close()
    err = proc.stderr.read()
    assert proc.wait(timeout=300) in (0, 1) and err == b"", err.decode()[-2000:]
