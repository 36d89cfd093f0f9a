"""Incidents of zoo programs whose origins are known by construction (tests/programs/zoo/,
whose header says what goes NaN and why): no made-up origin beside the real one.

Each case is a way the walk used to stop early and call what it stopped at a new origin:
- an eager update reading a gradient through an Identity TensorFlow does not record (Keras'
  apply_gradients) was said to carry NaN "from numpy data";
- a variable updated row by row (Keras' SGD applies a gather's gradient with
  ResourceScatterSub) was said to hold NaN "written by" its creation;
- one replica's all-reduce member, whose ∞ came from another replica's gradient, was an
  origin of its own whose inputs were "not known";
- an iterator's batch holding what a dataset.map function made was "data" again, fixed where
  the dataset was made;
- a while loop's variable, fed the previous iteration's output, was said to come "from
  outside" (an if inside the loop was not looked into; the iteration paired was its own);
- a tensor holding a −∞ mask on purpose (the tf.where applying it), or NaN next to it,
  walked back to the mask's constant: an incident "the constant itself holds it";
- a forward op's gradient, non-finite in the same step for the same reason (cosh's sinh on
  one replica, an untraced backward function of log(0)), was an incident of its own.
Reports come from the session's zoo runs (conftest.py `zoo_runs`: only these programs are
run when this file runs alone).
"""

from __future__ import annotations

from typing import Any

import pytest
from zoo_support import ZooProgram, zoo_programs

pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

# program → (the op types of its incidents, in order; why, by construction)
EXPECTED: dict[str, tuple[list[str], str]] = {
    "c1_tutorial_rmse_gradient": (
        ["__inference___backward_rmse_*", "__inference___backward___call___*"],
        "sqrt's derivative at 0 in rmse's backward function; the model's backward function "
        "receives it (untraced: its own incident); the updates read the gradients through "
        "eager Identities"),
    "c1_tutorial_separate_functions": (
        ["Log", "__inference___backward_model_*"],
        "log(0) in cross_entropy, with its backward function's call (untraced: its only "
        "forward op with an infinite derivative is that Log, an origin in the same step, and "
        "it reads what cross_entropy's call returned — it was a second incident); the "
        "model's backward function; the updates read the gradients through eager Identities"),
    "c9_mirrored_two_cpus": (
        ["Cosh"],
        "cosh(200) overflows on replica 1, and so does its gradient's sinh(200): the backward "
        "of that Cosh in the same step, one incident with it (tests/diagnosis/"
        "test_gradient_pairs.py; it was a second one); "
        "replica 0's all-reduce member (CollectiveReduceV2) had a finite input of its own and "
        "an ∞ from replica 1's gradient, which no graph edge records"),
    "c5_data_map_preprocess": (
        ["Log"],
        "log(0) in the dataset.map function; the batches the eager loop's IteratorGetNext "
        "hands out carry the elements it made (no edge records that)"),
    "d6_data_map_parallel_normalize": (
        ["RealDiv"],
        "0/0 in the parallel map function; fit's IteratorGetNext (in multi_step_on_iterator) "
        "hands its element out a step later"),
    "c8_autograph_control_flow": (
        ["RealDiv"],
        "0/0 in the Newton step, inside an if (a cond) inside a for loop (a while): the next "
        "iterations' loop variable is what that branch returned"),
    "x_while_loop_power_iteration": (
        ["MatMul"],
        "the unnormalised power iteration's matmul overflows in one iteration; the next "
        "iterations' loop variable is that product"),
    "c6_mask_zero_times_inf": (
        ["Mul"],
        "0 × −∞ where the mask's −∞ meets a zero weight; the mask itself (tf.fill of −inf, the "
        "tf.where applying it) holds −∞ on purpose"),
    "c6_mask_inf_minus_inf": (
        ["Sub"],
        "−∞ − (−∞) for a fully masked row; the row's max (−∞ on purpose) added back to the "
        "log of the NaN sum is the same NaN, not the mask's"),
    "c6_mask_attention_softmax": (
        ["Softmax"],
        "softmax of a fully masked row; the mask holds −∞ on purpose"),
    "c3_grad_norm_zero_vector": (
        ["SqrtGrad"],
        "the norm of a zero vector's gradient; the next steps read the centers it updated "
        "row by row (ResourceScatterSub)"),
}


@pytest.mark.parametrize("prog", [p for p in zoo_programs() if p.name in EXPECTED],
                         ids=lambda p: p.name)
def test_zoo_incidents_are_the_known_origins(zoo_runs: dict[str, Any],
                                             prog: ZooProgram) -> None:
    from fnmatch import fnmatchcase

    run = zoo_runs[prog.name]
    assert run.report is not None, run.report_error
    incidents = run.report["incidents"]
    want, why = EXPECTED[prog.name]
    got = [(i["origin"] or {}).get("op_type") or "" for i in incidents]
    assert len(got) == len(want) and all(
        fnmatchcase(g, w) for g, w in zip(got, want, strict=True)), (got, why)
    assert not [i for i in incidents if (i["origin"] or {}).get("cause") in ("data",
                                                                             "variable")]
    assert sum(i["alerts"] for i in incidents) == run.report["alerts"]["total"]


@pytest.mark.parametrize("prog", [p for p in zoo_programs()
                                  if p.name == "d6_data_map_parallel_normalize"],
                         ids=lambda p: p.name)
def test_a_dataset_function_nan_is_in_the_step_that_reads_it(zoo_runs: dict[str, Any],
                                                             prog: ZooProgram) -> None:
    """d6's silent clip is element 11, batched by 8: it reaches the training in step 1. The
    parallel map made it ahead of time, during step 0 — the input pipeline's traces belong to
    no step, so the incident and the report's first step are the step that read it (step 0
    before, by the map's trace time)."""
    run = zoo_runs[prog.name]
    assert run.report is not None, run.report_error
    steps, incidents = run.report["steps"], run.report["incidents"]
    assert steps["first_alert_step"] == 1, steps
    assert [i["step"] for i in incidents] == [1]


# program → (the op type of its one incident, the data by construction): NaN that the data
# carries is one incident, whichever ops read it and however it came in
DATA: dict[str, tuple[str, str]] = {
    "c7_variable_checkpoint_restore": (
        "RestoreV2", "a checkpoint saved with a NaN weight, restored (each value assigned "
        "through an Identity TensorFlow does not record): was a second incident, the "
        "variable 'assigned from numpy'"),
    "d9_fit_numpy_with_nan": (
        "Placeholder", "numpy arrays with a NaN given to fit: Keras' input pipeline maps a "
        "function over them; the batch it hands out was a second incident"),
    "d10_from_generator_nan": (
        "PyFunc", "a generator yielding a NaN (Dataset.from_generator): the iterator's batch "
        "was a second incident"),
    "c9_tf1_fed_placeholder": ("Placeholder", "a NaN fed through feed_dict"),
}


@pytest.mark.parametrize("prog", [p for p in zoo_programs() if p.name in DATA],
                         ids=lambda p: p.name)
def test_zoo_data_is_one_incident(zoo_runs: dict[str, Any], prog: ZooProgram) -> None:
    run = zoo_runs[prog.name]
    assert run.report is not None, run.report_error
    incidents = run.report["incidents"]
    want, why = DATA[prog.name]
    got = [((i["origin"] or {}).get("op_type"), (i["origin"] or {}).get("cause"))
           for i in incidents]
    assert got == [(want, "data")], (got, why)
    assert incidents[0]["alerts"] == run.report["alerts"]["total"]
