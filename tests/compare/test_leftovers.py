"""Leftovers of issue 29 (tests/programs/leftovers/, expectations in its EXPECTATIONS.md and
proven with numpy by its verify.py): a learning rate held in a variable the optimizer's
constructor assigned before step 0, state one run assigns and the other subtracts at the
last step, and state only one run keeps.

- Keras' eager `Adamax` multiplies its `learning_rate` variable by a slot (`lr · m`); that
  is the rate only when no op of the step writes the variable, and an eager run's step 0
  also holds the constructor's assignment of its initial value before the forward pass: the
  rate was "not compared" at step 0 (`rate_factor.held_rate`).
- The last step's state is compared as each run writes it; one run assigning the new value
  and the other subtracting an amount recorded no comparable tensor, and nothing said so:
  now the subtracting run's value before minus its amount is compared (`derived_state`).
- A moving average of the weights kept by one run only ended the diff with exit 3 (too little
  compared) though the runs were compared in full: now a divergence at step 0, `state`,
  saying which run keeps it (`state_pairing._alone`).
- An optimizer constructed in each branch of an if/elif/else had no creation line ("`SGD(` is
  on 4 lines"): now the construction whose statement a recorded stack frame is at — the
  branch that ran — and where none or several ran, the candidate lines are named
  (`source_calls.ran_of`).
- Keras' eager Adam folds its rate into a bias-corrected step size: at another rate than
  TF1's, what the user sees is pinned (a divergence at step 0's update, saying the rate was
  not compared); at the same rate, a one-element gradient that cancels to near zero made the
  equivalent pair "diverge" at step 1: gradients are now judged at their step's scale too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from compare.migration_fixtures import diff_json, per_step, recorded
from support.paths import PROGRAMS

HERE = PROGRAMS / "leftovers"
TF1, KERAS = HERE / "tf1_leftover.py", HERE / "keras_leftover.py"
RUNS = {"tf1_adamax": (TF1, "adamax", "none"), "k_adamax": (KERAS, "adamax", "eager", "none"),
        "tf1_momentum": (TF1, "momentum", "none"),
        "k_momentum": (KERAS, "momentum", "eager", "none"),
        "tf1_ema": (TF1, "sgd", "ema"), "tf1_sgd": (TF1, "sgd", "none"),
        "k_assign": (KERAS, "sgd", "eager", "assign"), "k_sgd": (KERAS, "sgd", "eager", "none"),
        "k_momentum_slow": (KERAS, "momentum_slow", "eager", "none"),
        "tf1_adam": (TF1, "adam", "none"), "k_adam": (KERAS, "adam", "eager", "none"),
        "k_adam_slow": (KERAS, "adam_slow", "eager", "none")}

pytestmark = [pytest.mark.tf, pytest.mark.timeout(900)]


@pytest.fixture(scope="session")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The twelve recordings (FULL_TENSOR), built once per test run."""
    done = recorded(tmp_path_factory, "leftovers", RUNS)
    return {name: logdir for name, (logdir, _) in done.items()}


def _diff(runs: dict[str, str], a: str, b: str) -> tuple[int, dict[str, Any]]:
    return diff_json(runs[a], runs[b], "--rtol", "1e-5", "--atol", "1e-6")


@pytest.mark.parametrize("optimizer", ["adamax", "momentum"])
def test_the_rate_is_compared_from_step_0(runs: dict[str, str], optimizer: str) -> None:
    """Equivalent runs (numpy: verify.py): the rate of each of the four variables compared
    and equal at every step, step 0 included (Keras reads its rate once per variable)."""
    code, r = _diff(runs, f"tf1_{optimizer}", f"k_{optimizer}")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert per_step(r, "learning_rate") == {k: (4, 0) for k in range(3)}, r["steps"]


def test_last_step_state_written_two_ways_is_compared(runs: dict[str, str]) -> None:
    """TF1's EMA subtracts (shadow -= (shadow - w)(1 - decay)), B assigns the new average:
    steps 0 and 1's averages are compared as the next step reads them; step 2's, which no
    step reads, as A's value before minus the amount it subtracts against B's value (was:
    skipped without a word)."""
    code, r = _diff(runs, "tf1_ema", "k_assign")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert per_step(r, "state") == {0: (4, 0), 1: (4, 0), 2: (4, 0)}, r["steps"]
    assert not any("state is not compared" in n for n in r["training"]["notes"]), r["training"]


@pytest.mark.parametrize(("a", "b", "side", "program", "code_line"), [
    ("tf1_ema", "k_sgd", "a", "tf1_leftover.py", "train = ema.apply(W)  # AT:average"),
    ("tf1_sgd", "k_assign", "b", "keras_leftover.py",
     "average.assign(0.9 * average + 0.1 * weight)  # CALL:average"),
])
def test_state_only_one_run_keeps_diverges(runs: dict[str, str], a: str, b: str, side: str,
                                           program: str, code_line: str) -> None:
    """The trainings agree (numpy), but one run keeps a moving average of its weights and the
    other none: a divergence at step 0's state, at the line that writes the average, the
    verdict saying which run keeps it — not exit 3 ('too little could be compared')."""
    code, r = _diff(runs, a, b)
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "state"), r["verdict_text"]
    assert f"state in {side.upper()} only" in r["verdict_text"], r["verdict_text"]
    frame = fd[side]["user_frame"]
    assert (Path(frame["file"]).name, frame["code"]) == (program, code_line), frame
    for q in ("loss", "gradient", "update"):
        assert all(d == 0 for _, d in per_step(r, q).values()), (q, r["steps"])


def test_a_run_longer_than_the_records_read_has_its_first_steps_compared(
        runs: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """An eager run of more executions than are read to find its steps (MAX_EXECUTIONS, 20,000
    in use: about half a millisecond a record) had no step found at all, every tensor compared
    op by op; now the steps within the records read are compared as steps, and the notes say
    how many executions were read and which steps that gave. The limit lowered to 200 of the
    momentum run's 257 executions (3 steps): 2 whole steps lie in the first 200."""
    from reader import DebugLogdir
    from tfdbg_tui.commands.diff import build_result
    from tfdbg_tui.core.compare import compare
    from tfdbg_tui.core.compare.contract import eager_steps
    from tfdbg_tui.core.compare.values import Tolerance

    a, b = DebugLogdir(runs["tf1_momentum"]), DebugLogdir(runs["k_momentum"])
    a.update()
    b.update()
    n = len(b.executions)
    assert 200 < n < 400, n  # the premise: three steps of ~80 executions
    monkeypatch.setattr(eager_steps, "MAX_EXECUTIONS", 200)
    r = build_result(compare(a, b, Tolerance(1e-5, 1e-6)), 1000)
    assert r["verdict"] == "equivalent", r["verdict_text"]
    assert r["training"]["steps_compared"] == 2, r["training"]
    assert f"{n:,} eager executions: training steps found in the first 200 only" in " ".join(
        r["notes"]) and "steps 0-1 compared as steps" in " ".join(r["notes"]), r["notes"]
    assert per_step(r, "update") == {0: (4, 0)}, r["steps"]  # step 1's is read by no step


def _lines(program: Path, text: str) -> set[int]:
    """The 1-based lines of `program` that construct its optimizer with `text`."""
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if line.lstrip().startswith("optimizer = ") and text in line.partition("#")[0]}


def _marked(program: Path, mark: str) -> set[int]:
    return {n for n, line in enumerate(program.read_text().splitlines(), 1)
            if line.rstrip().endswith(f"# {mark}")}


def test_the_branch_that_ran_is_the_creation_line(runs: dict[str, str]) -> None:
    """keras_leftover.py constructs `SGD(` in four branches; the one that ran (momentum_slow:
    Keras 3 makes the optimizer's variables as it is constructed, so its line is on recorded
    stacks) is B's line, the rate's mistake. TF1's MomentumOptimizer, on two lines, makes no
    op when constructed: its creation stays unknown and the two candidate lines are named."""
    code, r = _diff(runs, "tf1_momentum", "k_momentum_slow")
    fd = r["first_divergence"]
    assert code == 1 and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "learning_rate"), r["verdict_text"]
    assert len(_lines(KERAS, "SGD(")) == 4  # the premise
    b = fd["b"]
    assert (b.get("created_by"), b.get("creation_unknown")) == ("SGD", None), b
    assert b["user_frame"]["line"] in _marked(KERAS, "BUG:momentum_slow"), b["user_frame"]
    a = fd["a"]
    assert a["user_frame"]["line"] in _marked(TF1, "AT:update"), a["user_frame"]
    candidates = sorted(_lines(TF1, "MomentumOptimizer("))
    assert len(candidates) == 2, candidates
    why = a.get("creation_unknown") or ""
    assert f"tf1_leftover.py:{candidates[0]}, {candidates[1]}" in why, a


def test_eager_adam_at_another_rate_diverges_at_its_update(runs: dict[str, str]) -> None:
    """TF1's Adam at 0.05 against Keras' eager Adam at 0.01 (numpy: the updates differ from
    step 0 on, the gradients at step 0 agree). Keras folds the rate into its bias-corrected
    step size, so no tensor of B is the rate: the pair must not be equivalent, the first
    divergence is step 0's update, at B's construction of the Adam, and the text says the
    learning rate was not compared (not that the rates agree)."""
    code, r = _diff(runs, "tf1_adam", "k_adam_slow")
    fd = r["first_divergence"]
    assert code == 1 and r["verdict"] == "diverge" and fd is not None, r["verdict_text"]
    assert (fd["step"], fd["quantity"]) == (0, "update"), r["verdict_text"]
    assert "update" in r["verdict_text"], r["verdict_text"]
    assert "the learning rate was not compared" in fd["hint"], fd["hint"]
    assert per_step(r, "learning_rate").get(0, (0, 0)) == (0, 0), r["steps"]
    assert per_step(r, "gradient")[0] == (4, 0), r["steps"]
    assert fd["b"]["user_frame"]["line"] in _marked(KERAS, "BUG:adam_slow"), fd["b"]
    assert fd["a"]["user_frame"]["line"] in (_marked(TF1, "AT:optimizer")
                                             | _marked(TF1, "AT:update")), fd["a"]


def test_eager_adam_at_the_same_rate_is_equivalent(runs: dict[str, str]) -> None:
    """TF1's Adam and Keras' eager Adam at 0.05 (numpy: equivalent). out/bias's gradient is
    one element, the batch sum of the output's error: at step 1 it cancels to −2.4e-4 and
    differs by 1.7e-6, the weights' differences within the tolerance propagated — judged on
    its own size, "diverge at step 1: gradient of out/bias, yet its update agrees". Judged
    at the scale of the step's gradients (`values.gradient_scale`), every gradient agrees."""
    code, r = _diff(runs, "tf1_adam", "k_adam")
    assert code == 0 and r["verdict"] == "equivalent", r["verdict_text"]
    assert per_step(r, "gradient") == {k: (4, 0) for k in range(3)}, r["steps"]
    assert per_step(r, "update") == {0: (4, 0), 1: (4, 0)}, r["steps"]
    assert per_step(r, "loss") == {k: (1, 0) for k in range(3)}, r["steps"]
