"""The human form of `tfdbg-tui diff`, rendered with Rich from the JSON-able result.

It leads with the verdict and the first divergence on both sides — op, tensor, the user's
line of code in each program — then where differences start, what aligned by structure and
what stayed unmatched. Every string from a logdir goes through `literal()` into `Text`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from tfdbg_tui.core.sanitize import literal


def _tensor(entry: dict[str, Any]) -> Text:
    """`RealDiv  truediv:0  graph trace #7 in train_step` (or an eager execution)."""
    line = Text()
    line.append(literal(entry["op_type"]) or "?", style="bold")
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
    where = Text(indent + "at ")
    where.append(f"{literal(uf['file'])}:{uf['line']}", style="cyan")
    where.append(f" in {literal(uf['function'])}")
    out = [where]
    if uf.get("code"):
        out.append(Text(indent + "   " + literal(uf["code"]), style="yellow"))
    return out


def _names(entry: dict[str, Any]) -> str:
    name = entry["op_name"] or entry["op_type"]
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
        out.append(Text(f"graph {literal(g['a']) or '(unnamed)'} = {literal(g['b']) or '(unnamed)'}"
                        f" (by {g['aligned_by']})", style="dim"))
    al = r["aligned"]
    out.append(Text(
        f"compared {r['compared']:,} tensor pairs ({al['by_name']:,} aligned by name, "
        f"{al['by_structure']:,} by structure): {r['different']:,} different; unmatched "
        f"{r['unmatched_a']:,} in A, {r['unmatched_b']:,} in B"
        + (f"; {r['skipped']:,} not readable" if r["skipped"] else "")))
    first = r["first_divergence"]
    if first:
        k = first["occurrence"] + 1
        out.append(Text(f"\nFirst divergence (aligned by {first['aligned_by']}; the {_nth(k)} "
                        "time A computed this tensor):", style="bold red"))
        for side in ("a", "b"):
            out.append(Text(f"  {side.upper()}  ", style="bold").append_text(_tensor(first[side])))
            out.extend(_where(first[side], "      "))
        out.append(Text("  why: " + literal(first["reason"])))
    rest = r["divergences"]
    if rest:
        out.append(Text("\nThen:", style="bold"))
        for d in rest:
            line = Text("  ")
            line.append(_names(d["a"]), style="bold")
            line.append(f" ≠ {_names(d['b'])}: {literal(d['reason'])}")
            out.append(line)
    if r["divergent_tensors"]:
        out.append(Text("\nWhere differences start (tensors of A, earliest first):", style="bold"))
        for t in r["divergent_tensors"]:
            where = f"graph trace #{t['index']}" if t["kind"] == "graph" else \
                f"eager execution #{t['index']}"
            out.append(Text(f"  {_names(t)} {literal(t['op_type'])}: from {where}, "
                            f"{t['rows']:,} of {t['compared']:,} compared differ"))
    if r["aligned_by_structure"]:
        out.append(Text("\nAligned by structure, not by name:", style="bold"))
        for s in r["aligned_by_structure"]:
            out.append(Text(f"  A {_names(s['a'])} {literal(s['a']['op_type'])} ↔ "
                            f"B {_names(s['b'])} {literal(s['b']['op_type'])}  ×{s['rows']:,}"))
    for side in ("a", "b"):
        groups = r["unmatched"][side]
        if groups:
            out.append(Text(f"\nUnmatched in {side.upper()}:", style="bold"))
            out.extend(Text(f"  {_names(g)} {literal(g['op_type'])}  ×{g['rows']:,}")
                       for g in groups)
    for note in r["notes"]:
        out.append(Text("note: " + literal(note), style="yellow"))
    for side in ("a", "b"):
        for w in r["warnings"][side]:
            out.append(Text(f"warning ({side.upper()}): " + literal(w), style="yellow"))
    tol = r["tolerance"]
    if r["equivalent"]:
        out.append(Text(f"\nEquivalent within rtol={tol['rtol']:g}, atol={tol['atol']:g}: "
                        "no compared tensor differs.", style="bold green"))
    elif not r["compared"]:
        out.append(Text("\nNothing could be aligned between the two runs.", style="bold red"))
    else:
        out.append(Text(f"\nThe runs diverge (rtol={tol['rtol']:g}, atol={tol['atol']:g}).",
                        style="bold red"))
    return out


def print_result(result: dict[str, Any], console: Console | None = None) -> None:
    console = console or Console(highlight=False)
    for r in render_result(result):
        console.print(r, highlight=False)
