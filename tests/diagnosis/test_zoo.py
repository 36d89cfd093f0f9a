"""The zoo (issue 9): realistic programs that go NaN, and the line and reason the report gives.

Each program in tests/programs/zoo/ is a small TensorFlow script written the way users
write them; its header says what a correct diagnosis says and `# FIX` marks the line the
user must change (see zoo_support.py). The programs run once per session
(conftest.py: `zoo_runs`); `tfdbg-tui report --json LOGDIR` is read as a user would.

JSON contract asserted here (today's fields keep their meaning)
--------------------------------------------------------------
The alert under test is the FIRST entry of `first_alerts` (the one the TUI's Enter follows at
launch). Its `diagnosis.origin` carries:

    kind        "graph" | "eager": which table `index` is a row of (unchanged)
    op_type     the op where the NaN/∞ is born: the gradient op for a gradient case; the op
                inside the function for a NaN born in a tf.function called eagerly (not the
                call); where NaN first appears when the first alert is a deliberate ±∞
                constant (a -inf mask): that alert's diagnosis goes on to the NaN
    user_frame  the innermost user frame of that op's own creation stack (unchanged); for a
                forward case it is the line to fix
    cause       "forward"   born in an op of the forward computation (including NaN born
                            from a deliberate ±∞)
                "gradient"  born in the backward pass (gradient_tape/…, gradients/…,
                            __backward_… functions); the fix is in the forward op
                "data"      it came into the program with the data: a dataset iterator, a
                            fed placeholder, an unrecorded argument of a tf.function, a
                            checkpoint restored (RestoreV2)
                "variable"  read from a variable that already held it
                "divergence" training diverged: values grew step after step until they
                            overflowed; no op is wrong, the step size is (proposed: the
                            growth across steps is in the recorded data)
                (issue 9 words this as origin.kind = "data"; origin.kind keeps its row
                meaning, so the cause is this separate field)
    fix_frame   {file, line, function, code}: the line the user must change, always in the
                user's own source — AutoGraph-converted code mapped back to the user's
                function and line, never /tmp/__autograph_generated_file*.py, never a
                TensorFlow or Keras file:
                  forward  → the op's own user_frame
                  gradient → forward.user_frame (as PyTorch's anomaly mode), except for
                             a gradient the user wrote (tf.custom_gradient): then the
                             gradient op's own user_frame
                  data     → where the data enters the program: the tf.data Dataset's
                             creation, the placeholder's creation, the call that passes an
                             unrecorded argument to a tf.function, the checkpoint restore
                  variable → write.user_frame
                  divergence → where the learning rate is set (the optimizer's creation)
                `function` is the user's function ("focal_loss", not "tf__focal_loss");
                `code` is that source line
    forward     (gradient) {kind, op_type, op_name, graph, user_frame}: the forward op whose
                derivative produced the NaN/∞ (op_name and graph may be null for an eager op)
    write       (variable) {kind, op_type, op_name, graph, user_frame}: the last
                AssignVariableOp / AssignAddVariableOp / AssignSubVariableOp on the variable
                before the read, eager or in a graph
    source      (deliberate ±∞) {op_type, …, user_frame}: the constant the ∞ comes from
    device      the device the origin ran on (e.g. …/device:CPU:1 for a MirroredStrategy
                replica)
and `diagnosis.explanation` names the cause in words (each program's `cause` words, e.g.
"zero", "negative", "overflow", "float16", "-inf"; "−"/"∞" match "-"/"inf").

Cases the tool does not get right yet are strict xfails whose reason says what the report
says today against what it should say; the diagnosis work flips them to passes (a strict
xfail that passes fails the run, so the mark must then be removed); a case whose recorded
trace order varies between runs is a non-strict xfail (RACY).
"""

from __future__ import annotations

import pytest
from zoo_support import ZooProgram, ZooRun, problems, summary, zoo_programs

# The session fixture runs the whole zoo inside the first test: allow for a loaded machine.
pytestmark = [pytest.mark.tf, pytest.mark.timeout(1800)]

# name → what is wrong today (report vs expectation); cleared as the diagnosis learns.
XFAIL: dict[str, str] = {}
# Cases whose recorded trace order varies from run to run, so today's wrong answer is only
# usually wrong: a non-strict xfail (an XPASS shows up in the summary, never fails the run).
RACY: set[str] = set()  # the dataset-function argument order is now paired per invocation

PROGRAMS = zoo_programs()


def _params() -> list[object]:
    out = []
    for prog in PROGRAMS:
        marks = []
        if prog.name in XFAIL:
            marks.append(pytest.mark.xfail(strict=prog.name not in RACY,
                                           reason=f"issue 9: {XFAIL[prog.name]}"))
        out.append(pytest.param(prog, id=prog.name, marks=marks))
    return out


def _run(zoo_runs: dict[str, ZooRun], prog: ZooProgram) -> ZooRun:
    run = zoo_runs[prog.name]
    assert run.returncode == 0, f"{prog.name} failed:\n{run.output}"
    assert run.report is not None, f"report --json unreadable: {run.report_error}"
    return run


@pytest.mark.parametrize("prog", [pytest.param(p, id=p.name) for p in PROGRAMS])
def test_zoo_program_goes_nan(zoo_runs: dict[str, ZooRun], prog: ZooProgram) -> None:
    """Each program runs to the end and its logdir has alerts: `report` exits with 1."""
    run = _run(zoo_runs, prog)
    assert run.report_returncode == 1, run.report_error
    assert run.report is not None and run.report["alerts"]["total"] > 0


@pytest.mark.parametrize("prog", _params())
def test_zoo_diagnosis_names_the_line_and_the_cause(zoo_runs: dict[str, ZooRun],
                                                    prog: ZooProgram) -> None:
    run = _run(zoo_runs, prog)
    assert run.report is not None
    found = problems(prog, run.report)
    assert not found, (f"{prog.name} (FIX line {prog.fix_line}, {prog.kind}): today "
                       f"{summary(run.report)}\n  - " + "\n  - ".join(found))


def test_zoo_has_every_kind_and_enough_programs() -> None:
    kinds = {p.kind for p in PROGRAMS}
    assert kinds == {"forward", "gradient", "data", "variable", "divergence"}
    assert len(PROGRAMS) >= 24
