"""`tfdbg-tui diff A B`: the first tensor where two runs diverge, for humans or for CI.

This module is the command: arguments, loading both logdirs (in parallel), the JSON-able
result and the exit status — 0 equivalent within tolerance (when the runs train: every
compared step's loss, gradients and updates were compared and agree), 1 they diverge, 2 bad
input, 3 too little could be compared (the message says what was missing). The comparison
itself is `tfdbg_tui.core.compare`; tensors are described by the report's `tensor_entry`, so
`a`/`b` read exactly as `report --json`'s alerts, plus the training `step` and `quantity`.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from typing import Any, TextIO

import numpy as np

from reader import GRAPH, DebugLogdir, ReaderError
from reader.io.safewrite import replace_file
from tfdbg_tui.commands.args import (
    Parser,
    UsageError,
    add_remote_timeout,
    apply_remote_timeout,
    count,
)
from tfdbg_tui.commands.diff_lines import place_lines
from tfdbg_tui.commands.diff_map import MapError, read_map, unused
from tfdbg_tui.commands.ended import ended_by_signals
from tfdbg_tui.commands.output import planned
from tfdbg_tui.commands.pair_load import load_pair
from tfdbg_tui.core.compare import (
    QUANTITIES,
    Comparison,
    TensorGroup,
    Tolerance,
    compare,
    explain,
)
from tfdbg_tui.core.compare.contract import contract_position
from tfdbg_tui.core.compare.explain import fix_hint
from tfdbg_tui.core.compare.series import LossSeries, loss_series, series_json
from tfdbg_tui.core.compare.verdict import decide, hint, later_agree, step_table
from tfdbg_tui.core.sanitize import error_line

PROG = "tfdbg-tui diff"




def _tolerance(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"must be a finite number ≥ 0: {text!r}")
    return value


def finite(obj: Any) -> Any:
    """`obj` with every non-finite float replaced by None (JSON has no NaN or Infinity)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [finite(v) for v in obj]
    return obj



def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog=PROG, description="Find the first tensor where two runs diverge.",
               epilog="exit status: 0 equivalent within tolerance (every compared step's "
                      "loss, gradients and updates agree), 1 they diverge, 2 an error, 3 too "
                      "little could be compared to judge (no verdict)")
    p.add_argument("a", metavar="A", help="logdir of run A (the one under test)")
    p.add_argument("b", metavar="B", help="logdir of run B (the reference)")
    p.add_argument("--run-a", help="run id (or unique prefix) in A when it holds several")
    p.add_argument("--run-b", help="run id (or unique prefix) in B when it holds several")
    p.add_argument("--rtol", type=_tolerance, default=Tolerance.rtol,
                   help="relative tolerance, as assert_allclose: |a−b| ≤ atol + rtol·|b|, "
                        "with |b| at least the tensor's rms (default %(default)g)")
    p.add_argument("--atol", type=_tolerance, default=Tolerance.atol,
                   help="absolute tolerance (default %(default)g)")
    p.add_argument("--tight-steps", type=count, default=0, metavar="N",
                   help="judge the first N training steps on --atol alone (rtol 0), the later "
                        "ones on atol + rtol·|b|, as the migration guide does (default 0)")
    p.add_argument("--map", metavar="FILE",
                   help="pair variables the tool cannot pair itself: lines 'A_REGEX = B_REGEX' "
                        "(searched in the variable names each run shows)")
    p.add_argument("--csv", metavar="FILE",
                   help="write the table of training steps × quantities as CSV ('-': stdout)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--limit", type=count, default=10,
                   help="how many divergences, tensors and unmatched ops to list")
    add_remote_timeout(p)
    return p


# ---------------------------------------------------------------------- the JSON result
def _side(logdir: DebugLogdir) -> dict[str, Any]:
    return {"logdir": logdir.path, "run": logdir.run_id, "modes": logdir.tensor_debug_modes,
            "graph_traces": len(logdir.traces), "eager_outputs": len(logdir.outputs)}


def _brief(logdir: DebugLogdir, kind: int, row: int) -> dict[str, Any]:
    """A tensor group's row in words (no stack): kind, index, op, graph, slot."""
    if kind == GRAPH:
        graph = logdir.graph(logdir.graph_of_trace(row))
        return {"kind": "graph", "index": row, "op_type": logdir.op_type_of_trace(row),
                "op_name": logdir.op_name_of_trace(row),
                "graph_name": (graph.name or None) if graph else None,
                "output_slot": int(logdir.traces.slot[row])}
    execution = int(logdir.outputs.execution[row])
    ex = logdir.execution(execution)
    graph = logdir.graph(ex.graph_id) if ex.graph_id is not None else None
    return {"kind": "eager", "index": execution, "op_type": ex.op_type, "op_name": None,
            "graph_name": (graph.name or None) if graph else None,
            "output_slot": int(logdir.outputs.slot[row])}


def _divergence(c: Comparison, p: int, full: bool) -> dict[str, Any]:
    # the report's builder (and the diagnosis it pulls in) only when a divergence is
    # described: two equivalent runs, the usual CI case, never pay for importing it
    from tfdbg_tui.commands.report.build import tensor_entry

    d = explain(c, p)
    a = tensor_entry(c.a, d.kind, d.a_index, d.a_slot)
    b = tensor_entry(c.b, d.b_kind if d.b_kind >= 0 else d.kind, d.b_index, d.b_slot)
    quantity = QUANTITIES[int(c.pairs.quantity[p])]
    place_lines(c, p, quantity, a, b)
    if not full:
        a.pop("stack", None)
        b.pop("stack", None)
    step = int(c.pairs.step[p])
    return {"a": a, "b": b, "max_abs_error": d.max_abs, "max_rel_error": d.max_rel,
            "reason": d.reason, "reason_code": d.reason_code, "worst_index": d.worst_index,
            "aligned_by": d.aligned_by, "occurrence": d.occurrence,
            "step": step if step >= 0 else None,
            "quantity": quantity,
            "contract_position": contract_position(int(c.pairs.quantity[p])),
            "later_agree": later_agree(c, p),
            "what": c.pairs.label[p] or None,
            "hint": fix_hint(c, p)}




def _group(c: Comparison, side: str, g: TensorGroup) -> dict[str, Any]:
    entry = _brief(c.a if side == "a" else c.b, g.kind, g.row)
    entry["rows"] = g.count
    return entry


def build_result(c: Comparison, limit: int) -> dict[str, Any]:
    """The `--json` output; its first six keys are the contract CI jobs read."""
    # (from its own module: `report.build` would import the report's builder and the
    # diagnosis under it, ~60 modules, a tenth of a second a diff spent for one function)
    from tfdbg_tui.core.liveness import incomplete_tails

    first_pair = c.first_divergence  # always given, whatever --limit says
    first = _divergence(c, first_pair, True) if first_pair is not None else None
    later = c.divergences(limit)[1:]
    verdict, missing = decide(c)
    sp = c.training.sp
    series = loss_series(c)
    return {
        "equivalent": verdict == "equivalent",
        "compared": c.compared,
        "different": c.different,
        "unmatched_a": c.unmatched("a"),
        "unmatched_b": c.unmatched("b"),
        "first_divergence": first,
        "verdict": verdict,
        "verdict_text": c.verdict_text(),
        "missing": missing,
        "hint": hint() if verdict == "incomparable" else None,
        "tolerance": {"rtol": c.tolerance.rtol, "atol": c.tolerance.atol},
        "tolerances": {"rtol": c.tolerance.rtol, "atol": c.tolerance.atol,
                       "tight_steps": c.tolerance.tight_steps,
                       "text": c.tolerance.describe()},
        "training": {"steps_a": c.training.a.n_steps, "steps_b": c.training.b.n_steps,
                     "steps_compared": sp.n_steps if sp is not None else 0,
                     "variables": [{"a": x, "b": y} for x, y in sp.variables] if sp else [],
                     "unpaired_variables": {"a": sp.unpaired_a if sp else [],
                                            "b": sp.unpaired_b if sp else []},
                     # what the step model could not compare, and why
                     "notes": list(sp.notes) if sp else []},
        "steps": _with_loss(step_table(c), series),
        "loss_series": series_json(series),
        "a": _side(c.a),
        "b": _side(c.b),
        "aligned": {"by_name": c.by_name, "by_structure": c.by_structure},
        "skipped": c.skipped,
        "graphs": [{"a": gp.name_a, "b": gp.name_b,
                    "aligned_by": "name" if gp.how == 0 else "structure"}
                   for gp in c.graph_pairs],
        "divergences": [_divergence(c, p, False) for p in later],
        "divergent_tensors": [{**_group(c, "a", g), "compared": g.total}
                              for g in c.divergent_tensors(limit)],
        # tensors that differ where the loss, gradients and updates agree (see "notes")
        "differing_deciding_nothing": [{**_group(c, "a", g), "compared": g.total}
                                       for g in c.divergent_tensors(limit, deciding=False)],
        "aligned_by_structure": [{"a": _brief(c.a, g.kind, g.row),
                                  "b": _brief(c.b, g.kind, g.partner_row), "rows": g.count}
                                 for g in c.structure_tensors(limit)],
        "unmatched": {side: [_group(c, side, g) for g in c.unmatched_tensors(side, limit)]
                      for side in ("a", "b")},
        "notes": c.notes,
        "warnings": {"a": c.a.all_warnings() + incomplete_tails(c.a),
                     "b": c.b.all_warnings() + incomplete_tails(c.b)},
    }


def _with_loss(steps: list[dict[str, Any]], s: LossSeries | None) -> list[dict[str, Any]]:
    """Each compared step gains `loss_a`/`loss_b` (a number, null when not a finite number)
    and `loss_a_state`/`loss_b_state` (`value`, `nan`, `+inf`, …: see `series_json`)."""
    if s is None:
        return steps
    for row in steps:
        k = row["step"]
        for name, side in (("a", s.a), ("b", s.b)):
            state = side.states[k] if k < len(side.states) else "unknown"
            v = side.values[k] if k < len(side.values) else math.nan
            row[f"loss_{name}"] = v if math.isfinite(v) else None
            row[f"loss_{name}_state"] = state
    return steps


def write_csv(result: dict[str, Any], out: TextIO) -> None:
    """The steps × quantities table, one row per (step, quantity)."""
    w = csv.writer(out)
    w.writerow(["step", "quantity", "compared", "equal", "different", "max_abs_error",
                "max_rel_error", "cosine"])
    for step in result["steps"]:
        for q, v in step["quantities"].items():
            w.writerow([step["step"], q, v["compared"], v["equal"], v["different"],
                        "" if v["max_abs_error"] is None else repr(v["max_abs_error"]),
                        "" if v["max_rel_error"] is None else repr(v["max_rel_error"]),
                        "" if v["cosine"] is None else repr(v["cosine"])])


EXIT = {"equivalent": 0, "diverge": 1, "incomparable": 3}


def main(argv: Sequence[str]) -> int:
    """Run the diff command; returns the exit status (0 equivalent, 1 diverge, 2 error,
    3 too little compared)."""
    try:
        opts = build_parser().parse_args(list(argv))
    except UsageError as exc:
        print(error_line(f"{PROG}: error", exc), file=sys.stderr)
        return 2
    apply_remote_timeout(opts.remote_timeout)
    mapping, rules = None, []
    if opts.map:  # read first: a bad map is said before the runs are loaded
        try:
            rules = read_map(opts.map)
        except MapError as exc:
            print(error_line(f"{PROG}: error", exc), file=sys.stderr)
            return 2
        mapping = [(pa, pb) for _, pa, pb in rules]
    try:
        a, b = load_pair(opts.a, opts.b, opts.run_a, opts.run_b)
    except ReaderError as exc:
        print(error_line(f"{PROG}: error", exc), file=sys.stderr)
        return 2
    # Values near ±1.7e308 overflow in norms and dot products: numpy's RuntimeWarnings
    # ("overflow encountered in dot", with a source line) are not ours to print — what
    # cannot be computed is shown as missing (null), never as warnings on stderr.
    with np.errstate(all="ignore"):
        comparison = compare(a, b, Tolerance(opts.rtol, opts.atol, opts.tight_steps),
                             mapping=mapping)
        result = build_result(comparison, opts.limit)
    for why in unused(rules, comparison):  # a rule that changed nothing is said, not hidden
        print(error_line(f"{PROG}: warning", f"--map {opts.map}: {why}"), file=sys.stderr)
    planned(EXIT[result["verdict"]])  # its status, also if the output is cut (`| head`)
    if opts.csv:
        try:
            if opts.csv == "-":
                write_csv(result, sys.stdout)
            else:
                buf = io.StringIO()  # written whole, then put in place: a full disk keeps
                write_csv(result, buf)  # the previous file
                # while its temporary exists, SIGTERM/SIGHUP remove it (status 128 + the
                # signal); elsewhere they end the command at once, as before (its readers'
                # pools would finish their reads before an exception got through them)
                with ended_by_signals():
                    replace_file(opts.csv, lambda f: f.write(buf.getvalue().encode("utf-8")))
        except BrokenPipeError:
            raise  # `diff --csv - | head -1`: the CLI ends quietly
        except OSError as exc:
            print(error_line(f"{PROG}: error", f"--csv {opts.csv}: {exc.strerror or exc}"),
                  file=sys.stderr)
            return 2
        if opts.csv == "-":
            return EXIT[result["verdict"]]
    if opts.json:
        # strict JSON: a NaN/±∞ read from a file (a wall time, an error) becomes null
        json.dump(finite(result), sys.stdout, indent=1, allow_nan=False, default=str)
        sys.stdout.write("\n")
    else:
        from tfdbg_tui.commands.diff_text import print_result

        print_result(result)
    return EXIT[result["verdict"]]


__all__ = ["EXIT", "build_result", "load_pair", "main", "write_csv"]
