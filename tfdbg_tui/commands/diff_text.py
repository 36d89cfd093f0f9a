"""The human form of `tfdbg-tui diff`, rendered with Rich from the JSON-able result.

It leads with the verdict and the first divergence on both sides — op, tensor, the user's
line of code in each program — then where differences start, what aligned by structure and
what stayed unmatched. Every string from a logdir goes through `literal()` into `Text`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from reader.diagnosis.functions import function_label
from tfdbg_tui.commands import output
from tfdbg_tui.core.compare.series import series_from_json
from tfdbg_tui.core.compare.spark import plain_rows
from tfdbg_tui.core.sanitize import literal


def _tensor(entry: dict[str, Any]) -> Text:
    """`RealDiv  truediv:0  graph trace #7 in train_step` (or an eager execution)."""
    line = Text()
    line.append(_op(entry) or "?", style="bold")
    if entry["kind"] == "graph":
        line.append(f"  {literal(entry['op_name'])}:{entry['output_slot']}")
        line.append(f"  graph trace #{entry['index']}", style="dim")
    else:
        line.append(f"  output {entry['output_slot']}")
        line.append(f"  eager execution #{entry['index']}", style="dim")
    if entry.get("graph_name"):
        line.append(f" in {literal(entry['graph_name'])}", style="dim")
    return line


def _where(entry: dict[str, Any], indent: str) -> list[Text]:
    uf = entry.get("user_frame")
    if not uf:
        return [Text(indent + "(no user frame recorded)", style="dim")]
    applied = entry.get("applied_at")
    owner = literal(entry.get("created_by") or "")
    out = _at(uf, indent, f"{owner} created at " if applied else "at ")
    if applied:  # a schedule/optimizer: the line creating it, then the one applying it
        out += _at(applied, indent, "applied at ")
    elif entry.get("created_at"):  # the reference run: applying line first, then creating
        out += _at(entry["created_at"], indent, f"{owner} created at ")
    elif entry.get("creation_unknown"):
        out.append(Text(indent + "(this line applies it; "
                        + literal(entry["creation_unknown"]) + ")", style="dim"))
    return out


def _at(uf: dict[str, Any], indent: str, label: str) -> list[Text]:
    where = Text(indent + label)
    where.append(f"{literal(uf['file'])}:{uf['line']}", style="cyan")
    where.append(f" in {literal(uf['function'])}")
    out = [where]
    if uf.get("code"):
        out.append(Text(indent + "   " + literal(uf["code"]), style="yellow"))
    return out


def _op(entry: dict[str, Any]) -> str:
    """An entry's op type for people: a tf.function call by its user's name (`train_step`,
    not `__inference_train_step_42`; --json keeps the full one)."""
    return literal(function_label(entry["op_type"] or ""))


def _names(entry: dict[str, Any]) -> str:
    name = entry["op_name"] or function_label(entry["op_type"] or "")
    graph = f" ({entry['graph_name']})" if entry.get("graph_name") else ""
    return literal(f"{name}:{entry['output_slot']}{graph}")


def _nth(k: int) -> str:
    suffix = "th" if 10 <= k % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(k % 10, "th")
    return f"{k}{suffix}"


def render_result(r: dict[str, Any]) -> list[Any]:
    """Renderables for the diff result, in order (kept apart from printing for tests)."""
    out: list[Any] = []
    for side in ("a", "b"):
        s = r[side]
        line = Text(f"{side.upper()}  ", style="bold")
        line.append(literal(s["logdir"]))
        line.append(f"  run {literal(s['run'])[:8]}, {', '.join(s['modes']) or 'no tensors'}, "
                    f"{s['graph_traces']:,} graph traces, {s['eager_outputs']:,} eager outputs",
                    style="dim")
        out.append(line)
    for g in r["graphs"]:
        out.append(Text(f"graph {literal(g['a']) or '(Session graph)'} = "
                        f"{literal(g['b']) or '(Session graph)'}"
                        f" (by {g['aligned_by']})", style="dim"))
    al = r["aligned"]
    out.append(Text(
        f"compared {r['compared']:,} tensor pairs ({al['by_name']:,} aligned by name, "
        f"{al['by_structure']:,} by structure): {r['different']:,} different; unmatched "
        f"{r['unmatched_a']:,} in A, {r['unmatched_b']:,} in B"
        + (f"; {r['skipped']:,} not readable" if r["skipped"] else "")))
    out.extend(_steps(r))
    first = r["first_divergence"]
    if first:
        k = first["occurrence"] + 1
        if first.get("step") is not None:
            what = literal(first.get("what") or first["quantity"])
            out.append(Text(f"\nFirst divergence: training step {first['step']}, "
                            f"{first['quantity']} ({what}; aligned by {first['aligned_by']}):",
                            style="bold red"))
        else:
            out.append(Text(f"\nFirst divergence (aligned by {first['aligned_by']}; the "
                            f"{_nth(k)} time A computed this tensor):", style="bold red"))
        for side in ("a", "b"):
            out.append(Text(f"  {side.upper()}  ", style="bold").append_text(_tensor(first[side])))
            out.extend(_where(first[side], "      "))
        out.append(Text("  why: " + literal(first["reason"])))
        if first.get("hint"):
            out.append(Text("  how to fix: " + literal(first["hint"]), style="bold"))
    rest = r["divergences"]
    if rest:
        out.append(Text("\nThen:", style="bold"))
        for d in rest:
            line = Text("  ")
            if d.get("step") is not None:
                line.append(f"step {d['step']}, {literal(d.get('what') or d['quantity'])}: ")
            line.append(_names(d["a"]), style="bold")
            line.append(f" ≠ {_names(d['b'])}: {literal(d['reason'])}")
            out.append(line)
    for key, title in (("divergent_tensors", "Where differences start (tensors of A, "
                                             "earliest first):"),
                       ("differing_deciding_nothing", "Differ, but decide nothing (tensors of "
                                                      "A, earliest first; the notes say why):")):
        if r.get(key):
            out.append(Text(f"\n{title}", style="bold"))
        for t in r.get(key, []):
            where = f"graph trace #{t['index']}" if t["kind"] == "graph" else \
                f"eager execution #{t['index']}"
            out.append(Text(f"  {_names(t)} {_op(t)}: from {where}, "
                            f"{t['rows']:,} of {t['compared']:,} compared differ"))
    if r["aligned_by_structure"]:
        out.append(Text("\nAligned by structure, not by name:", style="bold"))
        for s in r["aligned_by_structure"]:
            out.append(Text(f"  A {_names(s['a'])} {_op(s['a'])} ↔ "
                            f"B {_names(s['b'])} {_op(s['b'])}  ×{s['rows']:,}"))
    for side in ("a", "b"):
        groups = r["unmatched"][side]
        if groups:
            out.append(Text(f"\nUnmatched in {side.upper()}:", style="bold"))
            out.extend(Text(f"  {_names(g)} {_op(g)}  ×{g['rows']:,}")
                       for g in groups)
    for note in r["notes"]:
        out.append(Text("note: " + literal(note), style="yellow"))
    for side in ("a", "b"):
        for w in r["warnings"][side]:
            out.append(Text(f"warning ({side.upper()}): " + literal(w), style="yellow"))
    tol = r["tolerances"]["text"]
    if r["verdict"] == "equivalent":
        out.append(Text(f"\nEquivalent within {tol}: " + (
            "what differs decides nothing (notes above)." if r.get("differing_deciding_nothing")
            else "no compared tensor differs."), style="bold green"))
        out.append(Text(literal(r["verdict_text"]), style="green"))
    elif r["verdict"] == "incomparable":
        out.append(Text("\nToo little could be compared (exit status 3):", style="bold yellow"))
        out.extend(Text("  - " + literal(m)) for m in r["missing"][:12])
        if not r["compared"]:
            out.append(Text("Nothing could be aligned between the two runs."))
        if r.get("hint"):
            out.append(Text("To make them comparable: " + literal(r["hint"]), style="dim"))
    else:
        out.append(Text(f"\nThe runs diverge ({tol}).", style="bold red"))
        out.append(Text(literal(r["verdict_text"]), style="red"))
    return out


# the columns in the step contract's order (`core.compare.steps.CONTRACT`)
_SHORT = {"variable": "vars", "layer_output": "layers", "loss": "loss",
          "regularization": "penalty", "gradient": "grads", "applied_gradient": "applied",
          "learning_rate": "lr", "update": "updates", "state": "state", "metric": "metric",
          "other": "other"}


def _cell(v: dict[str, Any]) -> str:
    if not v["compared"]:
        return "not read"
    if not v["different"]:
        return f"= ×{v['compared']}"
    err = v["max_abs_error"]
    text = f"≠{v['different']}/{v['compared']}"
    if err is not None:
        text += f" {err:.0e}"
    return text


def _steps(r: dict[str, Any]) -> list[Any]:
    """The steps × quantities table (training runs only)."""
    t = r.get("training") or {}
    if not r.get("steps"):
        return []
    out: list[Any] = [Text(f"\nTraining steps: A {t['steps_a']}, B {t['steps_b']}; compared "
                           f"{t['steps_compared']}, {len(t['variables'])} variables paired",
                           style="bold")]
    names = [q for q in _SHORT if any(q in s["quantities"] for s in r["steps"])]
    out.append(Text("  step  " + "".join(f"{_SHORT[q]:<12}" for q in names), style="dim"))
    for s in r["steps"]:
        line = Text(f"  {s['step']:<6}")
        for q in names:
            v = s["quantities"].get(q)
            cell = _cell(v) if v else "-"
            line.append(f"{cell:<12}", style="red" if v and v["different"] else "")
        out.append(line)
    if r.get("loss_series"):  # each run's loss per step, one scale, ┊ at the first ≠ step
        out.extend(Text("  " + literal(row)) for row in
                   plain_rows(series_from_json(r["loss_series"]), 60))
    un = t.get("unpaired_variables", {})
    for side in ("a", "b"):
        if un.get(side):
            out.append(Text(f"  variables of {side.upper()} without a partner: "
                            + literal(", ".join(un[side])), style="yellow"))
    out.extend(Text("  note: " + literal(n), style="yellow") for n in t.get("notes", []))
    return out


def print_result(result: dict[str, Any], console: Console | None = None) -> None:
    # soft wrap: a line of code is never broken in two (a terminal still folds it visually),
    # so it can be searched for in the output
    console = console or output.console(highlight=False, soft_wrap=True)
    for r in render_result(result):
        console.print(r, highlight=False)
