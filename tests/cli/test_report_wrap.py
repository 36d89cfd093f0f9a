"""`report` (human form) on a narrow terminal: a wrapped line keeps its indent.

A long source line used to wrap at the console width with its continuation at column 0,
so its trailing comment looked like a line of its own; a long explanation likewise. The
report dict is built by hand (the JSON contract's fields), rendered at width 60.
"""

from __future__ import annotations

import io

from rich.console import Console

from tfdbg_tui.commands.report.text import print_report

CODE = ("loss = -tf.reduce_mean(labels * tf.math.log(probabilities))  "
        "# cross entropy by hand, see the notes")
WHY = ("Log produced −∞ in 3 of 64 elements: its input Softmax:0 holds 3 zeros (log 0 = −∞); "
       "use tf.nn.softmax_cross_entropy_with_logits")


def _report() -> dict[str, object]:
    frame = {"file": "/home/u/train.py", "line": 42, "function": "train_step", "code": CODE}
    origin = {"kind": "graph", "index": 7, "op_type": "Log", "op_name": "Log",
              "graph_name": "train_step", "user_frame": frame, "fix_frame": frame,
              "cause": "forward"}
    entry = {"kind": "graph", "index": 7, "op_type": "Log", "op_name": "Log",
             "output_slot": 0, "graph_name": "train_step", "size": 64, "neg_inf": 3,
             "pos_inf": 0, "nan": 0, "user_frame": frame,
             "diagnosis": {"explanation": WHY, "origin": origin, "steps": []}}
    return {"logdir": "ld", "run": {"id": "r", "tensorflow_version": "2.21.0",
                                    "hosts": ["h"]},
            "runs": ["r"], "tensor_debug_modes": ["FULL_HEALTH"],
            "counts": dict.fromkeys(("executions", "graph_traces", "graphs", "ops",
                                     "source_files", "stack_frames"), 1),
            "alerts": {"total": 1}, "first_alerts": [entry], "warnings": []}


def _block(lines: list[str], start: str) -> list[str]:
    """The lines of the one wrapped item that starts with `start` (after its indent)."""
    i = next(k for k, ln in enumerate(lines) if ln.strip().startswith(start))
    indent = len(lines[i]) - len(lines[i].lstrip())
    out = [lines[i]]
    for ln in lines[i + 1:]:
        if not ln.strip() or len(ln) - len(ln.lstrip()) < indent:
            break
        if ln.strip().startswith(("at ", "why:", "fix:", "born")):
            break
        out.append(ln)
    return out


def test_a_long_source_line_wraps_under_itself() -> None:
    out = io.StringIO()
    print_report(_report(), Console(file=out, width=60, color_system=None))
    lines = out.getvalue().splitlines()
    code = _block(lines, "loss = ")
    assert len(code) > 1, lines  # it did wrap at width 60
    assert all(len(ln) <= 60 for ln in lines)
    assert all(ln.startswith(" " * 9) for ln in code), code
    assert " ".join(ln.strip() for ln in code) == CODE  # nothing lost, comment included
    comment = next(ln for ln in lines if "see the notes" in ln)
    assert comment.startswith(" " * 9)  # not at the left edge, as if a line of its own
    why = _block(lines, "why:")
    assert len(why) > 1 and all(ln.startswith(" " * 6) for ln in why), why
