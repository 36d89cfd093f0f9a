"""An unroled quantity never outranks a roled one (issue 29): a difference between two
tensors no role of the step names (`other`: an intermediate, perhaps two different tensors
paired by structure) is never the first divergence when a quantity of the step contract —
the variables, a layer's output, the loss, a gradient, the rate, an update — differs at its
step or a later one. It stays listed among the divergences.

The rule (`result.roled_first`) on pair ids, then on real recordings of
tests/programs/unroled/tf1_soft_targets.py: soft targets at a temperature of 2 against 4 —
the targets' division (a forward op of no role: it depends on no variable) differs first
in time, and so does the loss. A pair aligned by name (one program against itself) is no
guess, so there the division stays first; against the TF2 rewrite (paired by structure)
the loss comes first.

And two different tensors are not paired as one: against tf2_soft_targets.py (the targets
computed eagerly before training, the logits / T in a `tf.function` step) the structural
pairing took B's only division for A's first (teacher / T); a forward op computed from the
model's variables is no longer paired with one computed from the inputs alone (`merge`).
"""

from __future__ import annotations

import numpy as np
import pytest
from compare.migration_fixtures import diff_json
from support.paths import PROGRAMS
from support.recordings import recorded_run

from tfdbg_tui.core.compare.contract import (
    Q_GRADIENT,
    Q_LAYER,
    Q_LOSS,
    Q_METRIC,
    Q_OTHER,
    Q_UPDATE,
)
from tfdbg_tui.core.compare.result import roled_first


def _first(quantities: list[int], steps: list[int]) -> list[int]:
    """`roled_first` on pairs 0..n-1 differing in that order."""
    found = np.arange(len(quantities), dtype=np.int64)
    return roled_first(found, np.array(quantities, np.int8), np.array(steps, np.int64)).tolist()


def test_a_roled_quantity_of_the_same_step_comes_first() -> None:
    assert _first([Q_OTHER, Q_OTHER, Q_LOSS, Q_GRADIENT], [0, 0, 0, 0]) == [2, 0, 1, 3]


def test_a_roled_quantity_of_a_later_step_comes_first() -> None:
    assert _first([Q_OTHER, Q_OTHER, Q_UPDATE], [0, 1, 2]) == [2, 0, 1]


def test_an_unroled_pair_aligned_by_name_stays_first() -> None:
    """Two runs of one program: the op that changed (or where a NaN was born), paired by
    its name, is no guess; the loss it reaches comes after it."""
    found = np.arange(3, dtype=np.int64)
    quantities = np.array([Q_OTHER, Q_OTHER, Q_LOSS], np.int8)
    steps = np.zeros(3, np.int64)
    assert roled_first(found, quantities, steps, np.array([True, False, True])).tolist() \
        == [0, 1, 2]
    assert roled_first(found, quantities, steps, np.array([False, True, True])).tolist() \
        == [2, 0, 1]


def test_an_unroled_difference_is_first_only_where_nothing_roled_differs() -> None:
    assert _first([Q_OTHER, Q_OTHER], [0, 1]) == [0, 1]
    assert _first([Q_OTHER, Q_METRIC], [0, 0]) == [0, 1]  # a metric is no step quantity
    assert _first([Q_LAYER, Q_OTHER, Q_LOSS], [0, 0, 0]) == [0, 1, 2]  # roled already first


@pytest.fixture(scope="session")
def soft_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The soft targets at a temperature of 2 and of 4 (and 4 in TF2), recorded once."""
    pytest.importorskip("tensorflow")
    return {name: recorded_run(tmp_path_factory, f"unroled-soft-targets-{name}",
                               PROGRAMS / "unroled" / f"{program}_soft_targets.py", t,
                               options=("--mode", "FULL_TENSOR"))[0]
            for name, program, t in (("2", "tf1", "2"), ("4", "tf1", "4"), ("tf2_4", "tf2", "4"))}


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_one_program_at_two_temperatures_parts_at_the_division(soft_runs: dict[str, str]
                                                               ) -> None:
    """TF1 against itself at T 2 and 4: the division by T, paired by its name, is where the
    runs part (the line the user changed); the loss differs after it."""
    code, r = diff_json(soft_runs["2"], soft_runs["4"], "--rtol", "1e-5", "--atol", "1e-6")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "other"), first
    assert first["a"]["op_type"] in ("Const", "RealDiv"), first["a"]  # T, or the division
    assert "T_SOFT" in (first["a"].get("user_frame") or {}).get("code", ""), first["a"]
    later = [(d["step"], d["quantity"]) for d in r["divergences"]]
    assert (0, "loss") in later, later


@pytest.mark.tf
@pytest.mark.timeout(900)
def test_the_targets_division_is_not_paired_with_the_logits(soft_runs: dict[str, str]
                                                            ) -> None:
    code, r = diff_json(soft_runs["2"], soft_runs["tf2_4"], "--rtol", "1e-5", "--atol",
                        "1e-6", "--limit", "100000")
    first = r["first_divergence"]
    assert code == 1 and first is not None, r["verdict_text"]
    assert (first["step"], first["quantity"]) == (0, "loss"), r["verdict_text"]
    crossed = [d for d in [first, *r["divergences"]]
               if "teacher / T_SOFT" in (d["a"].get("user_frame") or {}).get("code", "")
               and "logits / T" in (d["b"].get("user_frame") or {}).get("code", "")]
    assert not crossed, crossed[0]
