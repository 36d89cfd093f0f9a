"""Graph Structure: the selected op, its inputs above and its consumers below.

Enter on an input moves Graph Executions to that tensor's latest trace before the current
one (on a consumer: its first trace after). A function argument (a Placeholder inside a
tf.function) is never traced by TensorFlow: it is shown as the caller's tensor only when the
diagnosis walk resolves it exactly, and otherwise says the caller's tensor is unknown (never
a guess shown as fact). What identifies a link (its tensor and row) comes first on a line,
the notes after, so a narrow pane cuts notes, not facts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.worker import get_current_worker

from reader.diagnosis.functions import function_label
from reader.diagnosis.index import diag_index
from reader.index.graphs import Op
from tfdbg_tui.core import model
from tfdbg_tui.core.names import EAGER_CONTEXT, graph_label, trace_device
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import STRUCTURE_KEYS, to_bindings
from tfdbg_tui.ui.panes.base import ListPane, ShowTrace
from tfdbg_tui.ui.panes.registry import register_pane
from tfdbg_tui.ui.render import DIM, WARN
from tfdbg_tui.ui.vlist import VirtualList


def shorten_middle(text: Text, width: int) -> Text:
    """`text` in `width` cells, cut in the middle ("← MatMul:0 #3 … (step 2 · train_step)"):
    a row starts with what it is and ends with where it comes from, and both matter more
    than the middle of a long scope. The whole row is one `i` away (`whole_text`)."""
    plain = text.plain
    if text.cell_len <= width or width < 6:
        return text.copy()
    head = (width - 1) // 2  # characters; a wide one overflows and the list crops it
    tail = width - 1 - head
    return Text.assemble(text[:head], ("…", "dim"), text[len(plain) - tail:], no_wrap=True)


@dataclass(frozen=True)
class Row:
    """One line of the pane; `trace` set when Enter can jump somewhere."""

    text: Text
    trace: int | None = None
    kind: str = ""  # "input", "consumer", "op" or "" (a heading)


@register_pane(4, "graph_structure", "Graph Structure", short="Structure",
               area="top-middle", keys=STRUCTURE_KEYS)
class GraphStructurePane(ListPane):
    """Inputs, the op, and consumers of the op behind the selected trace."""

    BINDINGS: ClassVar[list[Binding | tuple[str, str] | tuple[str, str, str]]] = [
        *to_bindings(STRUCTURE_KEYS)]
    supports_filter = False  # a handful of rows, all about the op shown

    def __init__(self, state: model.AppState, *, id: str | None = None) -> None:
        super().__init__(state, id=id)
        self.rows: list[Row] = []
        self.inputs: list[model.OpLink] = []
        self.trace: int | None = None
        self.provisional = False
        self._last_pos: int | None = None  # the cursor's previous row (heading skips)

    def compose(self) -> ComposeResult:
        yield VirtualList(self._row, empty="select a graph execution or follow an alert",
                          id="gs-list")

    def _row(self, i: int, width: int) -> Text:
        return shorten_middle(self.rows[i].text, width) if i < len(self.rows) else Text("")

    def lines(self) -> list[str]:
        """The pane's rows as plain text, whole (what `i` shows when some are cut)."""
        return [r.text.plain for r in self.rows]

    def whole_text(self) -> Text:
        """Every row whole, styled as in the pane (`i` on this pane)."""
        return Text("\n").join(r.text for r in self.rows)

    def show_trace(self, trace: int) -> None:
        """Show the op of graph trace `trace`."""
        logdir, n = self.state.logdir, self.state.snapshot.traces
        op = logdir.op_of_trace(trace)
        self.trace = trace
        rows: list[Row] = []
        name = lit(logdir.trace_name(trace))
        head = Text(no_wrap=True)
        head.append(lit(logdir.op_type_of_trace(trace)), "bold cyan")
        head.append(f"  {name}  #{trace}", "bold")
        rows.append(Row(head))
        if op is None:
            rows.append(Row(Text("op creation not recorded (yet)", style=DIM)))
            self.inputs = []
            self._set(rows, [], first=None)
            return
        rows.append(Row(Text(f"in {lit(self._graph_path(op))}", style=DIM)))
        device = trace_device(logdir, trace) or op.device  # where this trace ran
        if device:
            rows.append(Row(Text(lit(device), style=DIM)))
        self.provisional = self.state.snapshot.indexing  # arguments not resolved exactly yet
        self.inputs = model.input_links(logdir, n, trace, op, exact=not self.provisional)
        rows.append(Row(Text(f"── inputs ({len(self.inputs)})", style="bold")))
        first = len(rows) if self.inputs else None
        for link in self.inputs:
            rows.append(Row(self._link_text("← ", link, "latest before"), link.trace, "input"))
        me = Text(no_wrap=True)
        me.append("● ", "bold")
        me.append(name, "bold")
        me.append(f"  {lit(op.op_type)}  #{trace}", DIM)
        rows.append(Row(Text("── op", style="bold")))
        rows.append(Row(me, trace, "op"))
        consumers = model.consumer_links(logdir, n, trace, op)
        rows.append(Row(Text(f"── consumers ({len(consumers)})", style="bold")))
        for link in consumers:
            rows.append(Row(self._link_text("→ ", link, "first after"), link.trace, "consumer"))
        if first is None:
            first = next((k for k, r in enumerate(rows) if r.kind == "consumer"), None)
        self._set(rows, self.inputs, first)

    def show_execution(self, index: int) -> None:
        """An eager op has no graph; a tf.function call names its graph."""
        ex = self.state.logdir.execution(index)
        head = Text(f"{lit(function_label(ex.op_type))}  #{index}", style="bold magenta")
        if function_label(ex.op_type) != ex.op_type:  # the full name too: retraces differ
            head.append(f"  {lit(ex.op_type)}", DIM)
        rows = [Row(head)]
        if ex.graph_id is not None:
            g = self.state.logdir.graph(ex.graph_id)
            name = graph_label(self.state.logdir, ex.graph_id)
            n_ops = len(g.ops) if g else 0
            rows.append(Row(Text(f"tf.function call of graph {lit(name)} ({n_ops} ops)",
                                 style=DIM)))
            rows.append(Row(Text("Enter in the Timeline jumps to its first graph trace",
                                 style=DIM)))
        else:
            rows.append(Row(Text("eager op: runs outside any graph", style=DIM)))
        self.inputs = []
        self.trace = None
        self._set(rows, [], None)

    def on_indexed(self) -> None:
        """Function arguments are resolved exactly only once the first read is done. The
        walk needs its index of the whole run (`reader.diagnosis.index`), built here in a
        worker first: built in this thread, at the end of a 12.5M-record first read, it held
        the screen — and a key pressed then — for up to seconds."""
        super().on_indexed()
        if self.trace is not None and self.provisional:
            self._resolve_when_ready(self.trace)

    @work(thread=True, exclusive=True, group="structure", exit_on_error=False)
    def _resolve_when_ready(self, trace: int) -> None:
        try:
            diag_index(self.state.logdir).warm()  # (its tables are built when first asked)
        except Exception:  # only a warm-up: show_trace reports what fails, in this thread
            pass
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._show_again, trace)

    def _show_again(self, trace: int) -> None:
        if self.trace == trace and self.provisional:
            self.show_trace(trace)

    def _set(self, rows: list[Row], inputs: list[model.OpLink], first: int | None) -> None:
        self.rows = rows
        vl = self.vlist
        vl.set_rows(len(rows), content_changed=True)
        vl.select_index(first if first is not None else 0, center=False)
        n = len(inputs)
        status = f"{n} input{'' if n == 1 else 's'}" if self.trace is not None else ""
        room = self.vlist.content_region.width
        if room and any(r.text.cell_len > room for r in rows):
            status += " · i: whole lines"  # rows cut in the middle (`shorten_middle`)
        self.set_status(status)

    def _graph_path(self, op: Op) -> str:
        logdir = self.state.logdir
        names = [graph_label(logdir, gid)
                 for gid in reversed(logdir.graphs.graph_chain(op.graph_id))]
        named = [n for n in names if n != EAGER_CONTEXT]  # a tf.function called eagerly
        return " ⊂ ".join(named or names) or graph_label(logdir, op.graph_id)

    def _link_text(self, arrow: str, link: model.OpLink, where: str) -> Text:
        logdir = self.state.logdir
        t = Text(no_wrap=True)
        t.append(arrow, "bold")
        t.append(lit(link.label), "bold")
        if link.trace is not None:
            bad = int(logdir.traces.bad[link.trace]) == 1
            if link.argument:
                t.append(f" = {lit(logdir.trace_name(link.trace))}", WARN if bad else "bold")
            t.append(f" #{link.trace}", WARN if bad else "")
        if link.op is not None:
            t.append(f"  {lit(link.op.op_type)}", "cyan")
        if link.trace is None:
            if link.pending:
                t.append("  (function argument: resolved when indexing ends)", DIM)
            elif link.op is not None and link.op.op_type == "Placeholder":
                t.append("  (function argument: the caller's tensor is unknown)", DIM)
            else:
                t.append("  (not traced)", DIM)
        elif link.argument:
            t.append("  (function argument: the caller's tensor)", DIM)
        else:
            t.append(f"  ({where})", DIM)
        return t

    def selected_name(self) -> str | None:
        """The name of the tensor or op under the cursor (what `y` copies)."""
        pos = self.vlist.cursor_index
        row = self.rows[pos] if pos is not None and pos < len(self.rows) else None
        if row is None:
            return None
        if row.trace is not None:
            return self.state.logdir.trace_name(row.trace)
        return row.text.plain.strip() or None

    def input_traces(self) -> frozenset[int]:
        return frozenset(link.trace for link in self.inputs if link.trace is not None)

    def on_virtual_list_highlighted(self, event: VirtualList.Highlighted) -> None:
        """The cursor never rests on a heading ("── inputs (1)"): it goes on to the next
        row Enter can follow, in the direction it was moving."""
        event.stop()
        pos, last = event.index, self._last_pos
        self._last_pos = pos
        if pos is None or pos >= len(self.rows) or self.rows[pos].kind:
            return
        down, up = range(pos + 1, len(self.rows)), range(pos - 1, -1, -1)
        order = (up, down) if last is not None and pos < last else (down, up)
        for k in (*order[0], *order[1]):  # onward; at the first or last row, back
            if self.rows[k].kind:
                self._last_pos = k
                self.vlist.select_index(k, center=False)
                return

    def on_virtual_list_selected(self, event: VirtualList.Selected) -> None:
        event.stop()
        row = self.rows[event.index] if event.index < len(self.rows) else None
        if row is None or not row.kind:
            return
        if row.trace is None:
            self.notify("that tensor has no trace to jump to", markup=False)
            return
        self.post_message(ShowTrace(row.trace))
