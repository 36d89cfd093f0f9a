"""The human form of `tfdbg-tui report`, rendered with Rich from the JSON-able report dict.

Every string that came from the logdir goes through `Text` objects built from `literal()`,
never through markup parsing, so a hostile op name cannot style, link or move the cursor.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from rich.console import Console, ConsoleOptions, RenderableType
from rich.padding import Padding
from rich.segment import Segment
from rich.table import Table
from rich.text import Text

from reader.diagnosis.functions import function_label
from reader.diagnosis.unrecorded import HOP
from reader.diagnosis.unrecorded_reads import HOP_READ
from tfdbg_tui.commands import output
from tfdbg_tui.commands.report.sections import SECTIONS
from tfdbg_tui.core.sanitize import literal
from tfdbg_tui.core.steps_strip import loss_cells, loss_note, step_range, strip_lines


class Hanging:
    """An indented line whose wrapped continuation keeps the indent.

    Rich wraps a long `Text` at the console width and starts the continuation at column 0,
    so a source line's trailing comment (or the end of a long explanation) landed on a line
    of its own at the left edge, looking like another line of the file. Rendered as the
    text after the indent inside a left padding, every wrapped line stays under its start.
    Not a `Text` (Rich would join it with the Texts around it and wrap it as one); `.plain`
    is still the whole line, as a Text's.
    """

    def __init__(self, indent: int, text: str, style: str = "") -> None:
        self.indent = indent
        self.plain = " " * indent + text
        self.body = Text(text, style=style)

    def __str__(self) -> str:
        return self.plain

    def __rich_console__(self, console: Console, options: ConsoleOptions
                         ) -> Iterable[Segment]:
        yield from console.render(Padding(self.body, (0, 0, 0, self.indent)), options)


def _counts_line(counts: dict[str, int]) -> str:
    parts = [
        (counts["executions"], "execution"),
        (counts["graph_traces"], "graph trace"),
        (counts["graphs"], "graph"),
        (counts["ops"], "op"),
        (counts["source_files"], "source file"),
        (counts["stack_frames"], "stack frame"),
    ]
    return " · ".join(f"{n:,} {word}{'' if n == 1 else 's'}" for n, word in parts)


def _health(entry: dict[str, Any]) -> Text:
    size = entry.get("size")
    text = Text()
    if size is not None:
        text.append(f"{size:,} element{'' if size == 1 else 's'}: ")
    fields = (("neg_inf", "−∞"), ("pos_inf", "+∞"), ("nan", "NaN"))
    known = [(entry.get(k), label) for k, label in fields if entry.get(k) is not None]
    if not known:
        text.append("has NaN or ∞ (this mode records only a flag)", style="bold red")
        return text
    for i, (n, label) in enumerate(known):
        if i:
            text.append(", ")
        text.append(f"{n:,} {label}", style="bold red" if n else "dim")
    return text


def render_report(report: dict[str, Any]) -> list[Any]:
    """Renderables for the report, in order (kept separate from printing for tests)."""
    out: list[Any] = []
    head = Table.grid(padding=(0, 2))
    head.add_column(style="bold")
    head.add_column()
    head.add_row("logdir", Text(literal(report["logdir"])))
    runs = report["runs"]
    run_text = Text(literal(report["run"]["id"]) or "(no run id)")
    if len(runs) > 1:
        run_text.append(f"  (newest of {len(runs)} runs; choose with --run)", style="dim")
    head.add_row("run", run_text)
    head.add_row("TensorFlow", Text(literal(report["run"]["tensorflow_version"]) or "?"))
    head.add_row("hosts", Text(literal(", ".join(report["run"]["hosts"])) or "?"))
    head.add_row("modes", Text(", ".join(report["tensor_debug_modes"]) or "(no tensors yet)"))
    head.add_row("counts", Text(_counts_line(report["counts"])))
    total = report["alerts"]["total"]
    incidents = report.get("incidents") or []
    alerts_text = Text(f"{total:,} NaN/∞ events" if total else "no NaN/∞ found",
                       style="bold red" if total else "green")
    if incidents:
        n = len(incidents)
        alerts_text.append(f" · {n} incident{'' if n == 1 else 's'} (by origin)")
    head.add_row("alerts", alerts_text)
    steps = report.get("steps") or {}
    if steps.get("count"):
        head.add_row("steps", Text(literal(_steps_line(steps, total))))
    elif "steps" in report:  # looked for, none found: say so (--json gives `step: null`)
        head.add_row("steps", Text(literal(_no_steps_line(steps))))
    out.append(head)
    out.extend(_strip(steps))
    for inc in incidents:
        out.extend(_incident(inc, len(incidents)))
    first = report["first_alerts"]
    if first:
        out.append(Text(f"\nFirst {len(first)} alert{'s' if len(first) != 1 else ''} "
                        "(earliest first):", style="bold"))
    by_number = {inc.get("number"): inc for inc in incidents}
    for n, entry in enumerate(first, 1):
        line = Text(f"{n:>3}. ")
        line.append(literal(function_label(entry["op_type"])), style="bold")
        if entry["kind"] == "graph":
            line.append(f"  {literal(entry['op_name'])}:{entry['output_slot']}")
            line.append(f"  graph trace #{entry['index']}", style="dim")
            if entry.get("graph_name"):
                line.append(f" in {literal(entry['graph_name'])}", style="dim")
        else:
            line.append(f"  output {entry['output_slot']}")
            call = function_label(entry["op_type"]) != entry["op_type"]
            line.append(f"  eager execution #{entry['index']}"
                        + (" (a tf.function call)" if call else ""), style="dim")
        if entry.get("step") is not None:
            line.append(f"  step {entry['step']}", style="bold")
            form = entry.get("step_form") or ""
            if "epoch" in form:  # the form is in the header; a fit step's epoch/batch here
                line.append(f" ({literal(form.removeprefix('fit '))})", style="dim")
        out.append(line)
        out.append(Text("      ").append_text(_health(entry)))
        uf = entry.get("user_frame")
        if uf:
            where = Text("      at ")
            where.append(f"{literal(uf['file'])}:{uf['line']}", style="cyan")
            where.append(f" in {literal(uf['function'])}")
            out.append(where)
            if uf.get("code"):
                out.append(Hanging(9, literal(uf["code"]), style="yellow"))
        for extra in _extras(entry, by_number):
            indent = len(extra) - len(extra.lstrip(" "))
            out.append(Hanging(6 + indent, extra.lstrip(" ")))
    for note in report.get("notes") or []:
        out.append(Text("note: " + literal(note), style="yellow"))
    for w in report["warnings"]:
        out.append(Text("warning: " + literal(w), style="yellow"))
    return out


def _extras(entry: dict[str, Any], incidents: dict[Any, dict[str, Any]]) -> list[str]:
    """The sections' lines for one alert; an alert of an incident printed above gets one
    line pointing to it instead of the same diagnosis again."""
    lines: list[str] = []
    for section in SECTIONS:
        if section.name == "diagnosis" and entry.get("incident") and entry.get("diagnosis"):
            inferred = any(HOP in step or HOP_READ in step
                           for step in entry["diagnosis"].get("path", []))
            lines.append(f"incident {entry['incident']} (above): "
                         + _incident_origin(entry["diagnosis"].get("origin"),
                                            incidents.get(entry["incident"]))
                         + (" — reached through a tensor TensorFlow did not record, "
                            "inferred (--json: its explanation)" if inferred else ""))
            continue
        lines.extend(literal(s) for s in section.human_lines(entry))
    return lines


def _incident_origin(own: dict[str, Any] | None, incident: dict[str, Any] | None) -> str:
    """The incident's origin as its heading names it; when the alert's own walk ended
    elsewhere (at the origin's gradient, or another op that overflowed in its step, merged
    into it), that too — else "incident 1 (above): Reciprocal" read under a heading
    "Incident 1: Log"."""
    head = (incident or {}).get("origin")
    if not head or not own or _key(own) == _key(head):
        return literal(_origin_name(own or head))
    backward = any(_key(own) == _key(b) for b in (incident or {}).get("backward") or [])
    overflow = any(_key(own) == _key(o) for o in (incident or {}).get("overflows") or [])
    return (literal(_origin_name(head)) + (" — at its gradient " if backward else
                                           " — at another overflow of its step, " if overflow
                                           else " — this alert's walk ended at ")
            + literal(_origin_name(own)))


def _key(origin: dict[str, Any]) -> tuple[Any, Any]:
    return origin.get("kind"), origin.get("index")


def _origin_name(origin: dict[str, Any] | None) -> str:
    if not origin:
        return "?"
    op_type = function_label(origin.get("op_type") or "?")  # a call: `train_step`
    name = origin.get("op_name") or op_type
    graph = f" in {origin['graph_name']}" if origin.get("graph_name") else ""
    return f"{name} ({op_type}){graph}" if name != op_type else f"{name}{graph}"


def _steps_line(steps: dict[str, Any], total: int) -> str:
    n = steps["count"]
    first = steps.get("first_alert_step")
    what = f"{n:,} training step{'' if n == 1 else 's'}"
    if first is not None:
        out = steps.get("alerts_outside_steps") or 0
        return (f"first NaN/∞ at step {first} of {n} ({step_range(n)}; "
                f"{steps.get('first_alert_form')})"
                + (f"; {out:,} outside the steps (the input pipeline, or before or after "
                   "the training)" if out else ""))
    if total:
        return f"{what}; the first NaN/∞ is outside them"
    return what


def _no_steps_line(steps: dict[str, Any]) -> str:
    """A run whose training steps were not found, in one line: what was looked for, and why
    not when the search says (an error, or a run too long to search)."""
    notes = "; ".join(str(n) for n in steps.get("notes") or [])
    return ("none found (no Session.run, train_step, tf.function or fit step)"
            + (f"; {notes}" if notes else ""))


def _strip(steps: dict[str, Any]) -> list[Any]:
    per = steps.get("per_step") or []
    if not per:
        return []
    counts = np.array([p["alerts"] for p in per], np.int64)
    values = [float(p["loss"]) if p.get("loss") is not None else None for p in per]
    cells = loss_cells(values, [p.get("loss_state", "unknown") for p in per])
    lines = strip_lines(len(per), counts, cells, steps.get("first_alert_step"))
    out: list[Any] = [Text("")] + [Text("  " + line, style="dim" if k == 0 else "")
                        for k, line in enumerate(lines)]
    loss = steps.get("loss")
    if loss:
        out.append(Hanging(2, literal(loss_note(loss.get("tensor") or "", loss.get("found")
                                                 or "", loss.get("note") or "")), style="dim"))
    return out


def _incident(inc: dict[str, Any], n: int) -> list[Any]:
    """One incident: its origin, step and alert count once, then its diagnosis."""
    out: list[Any] = []
    head = Text(f"\nIncident {inc['number']} of {n}: ", style="bold")
    head.append(literal(_origin_name(inc.get("origin")) if inc.get("origin")
                        else function_label(inc.get("origin_op_type") or "?")), style="bold red")
    if inc.get("step") is not None:
        head.append(f"  step {inc['step']}", style="bold")
        if inc.get("step_form"):
            head.append(f" ({literal(inc['step_form'])})", style="dim")
    out.append(head)
    ops = inc.get("op_types") or {}
    top = ", ".join(f"{literal(function_label(k))}×{v:,}" for k, v in list(ops.items())[:4])
    more = " …" if len(ops) > 4 else ""
    count = inc["alerts"]
    out.append(Hanging(6, f"{count:,} alert{'' if count == 1 else 's'} from alert "
                          f"{inc['first_alert'] + 1} on ({top}{more}); "
                          f"{inc['diagnosed']} diagnosed one by one", style="dim"))
    if inc.get("error"):
        out.append(Hanging(6, literal(inc["error"])))
    diag = inc.get("diagnosis")
    if diag:
        entry = {"kind": None, "index": None, "diagnosis": diag}
        for line in SECTIONS[0].human_lines(entry):
            indent = len(line) - len(line.lstrip(" "))
            out.append(Hanging(6 + indent, literal(line.lstrip(" "))))
    return out


def _indented(r: RenderableType) -> RenderableType:
    """An indented line whose wrapped rest keeps the indent (Rich would start it at column
    0, under the alert numbers)."""
    if not isinstance(r, Text):
        return r
    indent = len(r.plain) - len(r.plain.lstrip(" "))
    if not indent or indent == len(r.plain):
        return r
    return Padding(r[indent:], (0, 0, 0, indent))


def print_report(report: dict[str, Any], console: Console | None = None) -> None:
    """Print for humans. Into a pipe or a file the lines carry no trailing padding (Rich
    pads table cells to the console's width, 80 columns when it cannot ask a terminal)."""
    console = console or output.console(highlight=False)
    if console.is_terminal:
        for r in render_report(report):
            console.print(_indented(r), highlight=False)
        return
    with console.capture() as captured:
        for r in render_report(report):
            console.print(_indented(r), highlight=False)
    lines = captured.get().splitlines()
    console.file.write("".join(line.rstrip() + "\n" for line in lines))
