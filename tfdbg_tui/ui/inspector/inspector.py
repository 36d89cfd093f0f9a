"""`ValueInspector`: the screen `v` opens on a tensor — its values, statistics and health.

The app pushes `ValueInspector(logdir, kind, index, slot)` (kind GRAPH with a trace index, or
EAGER with an execution index and output slot). Reading a FULL_TENSOR record can mean 40 MB
of protobuf and a 10M-element array, so everything slow happens in a thread worker while the
screen shows a loading indicator and stays responsive (escape closes it at once and the
worker's result is dropped). Once loaded:

- FULL_TENSOR: header, statistics over finite values, a histogram, and the values in a
  Line-API grid that formats only what is visible; a slicing box (`[0, :10]`, `[..., 3]`),
  `n` to jump to the first NaN/∞, `s` to save the whole tensor to `.npy`;
- health modes: a labelled bar of −, 0, +, −∞, +∞, NaN; SHAPE: the shape; NO_TENSOR: how to
  record values. Then the value keys (`/`, `n`, `s`, `i`) leave the footer, the slice box
  cannot take focus (it once swallowed the first Esc), and pressing one says why it does
  not apply instead of doing nothing.

Every string from the logdir goes through `literal()` into `Text`/`Segment`, never markup.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.events import Key
from textual.screen import Screen
from textual.widgets import Input, Label, LoadingIndicator, ProgressBar, Static
from textual.worker import Worker, WorkerState, get_current_worker

from reader import DebugLogdir
from reader.modes import mode_name
from reader.values import (
    Index,
    SliceError,
    apply_index,
    format_index,
    parse_index,
    save_npy,
)
from tfdbg_tui.core.names import short_device, tensor_device
from tfdbg_tui.core.sanitize import literal
from tfdbg_tui.core.values import STAGES, Loaded, load
from tfdbg_tui.ui.footer import CoalescedFooter
from tfdbg_tui.ui.inspector.grid import ValueGrid, cell_width, formatter_for, kept_axes
from tfdbg_tui.ui.inspector.panels import HealthBar, HistogramView, stats_table

# The keys that work on values, by action and by key (see `check_action`, `on_key`).
VALUE_ACTIONS = frozenset({"focus_slice", "first_nonfinite", "save", "toggle_summary"})
VALUE_KEYS = frozenset({"slash", "n", "s", "i"})


class ValueInspector(Screen[None]):
    """Inspect one tensor of a logdir. See the module docstring for what it shows."""

    DEFAULT_CSS = """
    ValueInspector { layout: vertical; }
    ValueInspector #vi-title { height: 1; padding: 0 1; background: $boost; }
    ValueInspector #vi-loading { height: auto; padding: 1 2; }
    ValueInspector #vi-loading LoadingIndicator { height: 3; }
    ValueInspector #vi-body { height: 1fr; display: none; }
    ValueInspector #vi-summary { height: auto; max-height: 45%; padding: 0 1; }
    ValueInspector #vi-stats { width: auto; min-width: 30; margin-right: 3; }
    ValueInspector #vi-hist { width: 1fr; }
    ValueInspector #vi-message { height: auto; padding: 0 1; }
    ValueInspector #vi-slice { width: 1fr; }
    ValueInspector #vi-slicebar { height: auto; }
    ValueInspector #vi-status { height: 1; padding: 0 1; }
    ValueInspector ValueGrid { height: 1fr; border: round $primary 50%; }
    ValueInspector ValueGrid:focus { border: round $primary; }
    """

    AUTO_FOCUS = None  # the grid is focused once loaded; never the hidden slice box
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close"),
        Binding("q", "close", "Close", show=False),
        Binding("slash", "focus_slice", "Slice"),
        Binding("n", "first_nonfinite", "First NaN/∞"),
        Binding("s", "save", "Save .npy"),
        Binding("i", "toggle_summary", "Stats on/off"),
    ]

    def __init__(self, logdir: DebugLogdir, kind: int, index: int, slot: int = 0, *,
                 save_dir: str | None = None, name: str | None = None,
                 id: str | None = None) -> None:
        super().__init__(name=name, id=id)
        self.logdir = logdir
        self.kind = int(kind)
        self.index = int(index)
        self.slot = int(slot)
        self.save_dir = save_dir
        self.loaded: Loaded | None = None
        self.view_index: Index = ()
        self.saved_path: str | None = None
        self.load_worker: Worker[Loaded] | None = None
        self.error: str | None = None

    # ------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(Text(f"loading tensor {self.index}…"), id="vi-title")
        with Vertical(id="vi-loading"):
            yield LoadingIndicator()
            yield Label(Text("reading the record"), id="vi-stage")
            yield ProgressBar(total=STAGES, show_eta=False, id="vi-progress")
        with Vertical(id="vi-body"):
            with Horizontal(id="vi-summary"):
                yield Static(id="vi-stats")
                yield Static(id="vi-hist")
            yield Static(id="vi-message")
            with Horizontal(id="vi-slicebar"):
                yield Input(placeholder="slice, e.g. [0, :10] or [..., 3] — Enter applies, "
                            "empty shows all", id="vi-slice")
            yield Static(id="vi-status")
            yield ValueGrid(id="vi-grid")
        yield CoalescedFooter()

    def on_mount(self) -> None:
        self.load_worker = self._load()

    # ------------------------------------------------------------ keys without values
    def _no_values(self) -> bool:
        """Loaded (or failed) with nothing but counts: the value keys do not apply."""
        return self.error is not None or (self.loaded is not None and self.loaded.value is None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in VALUE_ACTIONS and self._no_values():
            return False  # not offered in the footer; `on_key` says why when pressed
        return True

    def why_no_values(self) -> str:
        """One line on why the value keys do nothing for this tensor."""
        if self.loaded is None:
            return "cannot inspect this tensor: no values to work on"
        mode = mode_name(self.loaded.target.mode)
        return (f"no values to slice, search or save: {mode} records "
                f"{'nothing about values' if mode == 'NO_TENSOR' else 'a summary, not values'}"
                " (record with tensor_debug_mode=\"FULL_TENSOR\" or "
                "tfdbg-tui run --mode FULL_TENSOR)")

    def on_key(self, event: Key) -> None:
        if self._no_values() and event.key in VALUE_KEYS:
            event.stop()
            self.notify(literal(self.why_no_values()), severity="warning", markup=False)

    def _disable_values(self) -> None:
        self.query_one("#vi-slice", Input).disabled = True  # never focused, never visible
        self.refresh_bindings()

    # ------------------------------------------------------------ loading (worker thread)
    @work(thread=True, exclusive=True, group="inspector-load", exit_on_error=False)
    def _load(self) -> Loaded:
        worker = get_current_worker()

        def progress(done: int, what: str) -> None:
            if not worker.is_cancelled:
                self.app.call_from_thread(self._progress, done, what)

        loaded = load(self.logdir, self.kind, self.index, self.slot, progress)
        if loaded.value is not None and loaded.stats is not None and not worker.is_cancelled:
            values = loaded.value.values
            fmt = formatter_for(values, loaded.value.dtype_name)
            loaded.layout = (fmt, cell_width(values, fmt, (loaded.stats.min, loaded.stats.max)))
        return loaded

    def _progress(self, done: int, what: str) -> None:
        if not self.is_attached:
            return
        self.query_one("#vi-progress", ProgressBar).update(progress=done)
        self.query_one("#vi-stage", Label).update(Text(what + "…"))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is not self.load_worker or not self.is_attached:
            return
        if event.state == WorkerState.SUCCESS and event.worker.result is not None:
            self._show(event.worker.result)
        elif event.state == WorkerState.ERROR:
            self.error = str(event.worker.error)
            self._show_error(self.error)

    # ------------------------------------------------------------ showing
    def _title(self, loaded: Loaded) -> Text:
        t = loaded.target
        title = Text(literal(t.name), style="bold")
        title.append(f"  ·  {literal(t.op_type)}  ·  {t.where}  ·  ", style="dim")
        title.append(mode_name(t.mode), style="bold cyan")
        device = short_device(tensor_device(self.logdir, self.kind, self.index, self.slot))
        if device:
            title.append(f"  ·  on {literal(device)}", style="bold #5fd7ff")
        return title

    def _show_error(self, message: str) -> None:
        self.query_one("#vi-loading").display = False
        self.query_one("#vi-body").display = True
        self.query_one("#vi-title", Static).update(Text("cannot inspect this tensor",
                                                        style="bold red"))
        self.query_one("#vi-message", Static).update(Text(literal(message), style="red"))
        for wid in ("#vi-summary", "#vi-slicebar", "#vi-status", "#vi-grid"):
            self.query_one(wid).display = False
        self._disable_values()

    def _show(self, loaded: Loaded) -> None:
        self.loaded = loaded
        self.query_one("#vi-loading").display = False
        self.query_one("#vi-body").display = True
        self.query_one("#vi-title", Static).update(self._title(loaded))
        message = self.query_one("#vi-message", Static)
        if loaded.stats is None or loaded.value is None:
            for wid in ("#vi-summary", "#vi-slicebar", "#vi-status", "#vi-grid"):
                self.query_one(wid).display = False
            message.update(self._summary_renderable(loaded))
            self._disable_values()
            return
        message.display = False
        stats = loaded.stats
        self.query_one("#vi-stats", Static).update(stats_table(stats))
        hist = self.query_one("#vi-hist", Static)
        if stats.histogram is not None:
            digits = 4 if stats.dtype_name in ("bfloat16", "float16") else 5
            hist.update(HistogramView(stats.histogram, digits))
        else:
            hist.display = False
        ndim = loaded.value.values.ndim
        default: Index = (0,) * (ndim - 2) + (slice(None),) * 2 if ndim > 2 else ()
        if default:
            self.query_one("#vi-slice", Input).value = format_index(default)
        self._apply(default)
        self.query_one("#vi-grid", ValueGrid).focus()

    def _summary_renderable(self, loaded: Loaded) -> RenderableType:
        parts: list[RenderableType] = []
        if loaded.facts:
            table = Table.grid(padding=(0, 2))
            table.add_column(style="bold")
            table.add_column()
            for label, value in loaded.facts:
                table.add_row(label, Text(literal(value)))
            parts.append(table)
        if loaded.health:
            parts.append(Text(""))
            parts.append(HealthBar(loaded.health, loaded.health_size))
        if loaded.message:
            parts.append(Text(""))
            parts.append(Text(loaded.message))
        return Group(*parts)

    # ------------------------------------------------------------ slicing
    def _apply(self, index: Index) -> bool:
        """Show values[index] (leading axes at 0 beyond two dims); False on a bad index."""
        assert self.loaded is not None and self.loaded.value is not None
        values = self.loaded.value.values
        status = self.query_one("#vi-status", Static)
        try:
            shown = apply_index(values, index)
        except SliceError as exc:
            status.update(Text(f"bad slice: {exc}", style="bold red"))
            return False
        self.view_index = index
        axes = kept_axes(values.shape, index)
        note = ""
        if shown.ndim > 2:
            lead = (0,) * (shown.ndim - 2)
            note = f"; showing {format_index((*lead, slice(None), slice(None)))} of it"
            shown = shown[lead]
            axes = axes[-2:] if axes is not None else None
        assert self.loaded.layout is not None
        fmt, width = self.loaded.layout
        self.query_one("#vi-grid", ValueGrid).set_array(shown, fmt, width, axes)
        where = format_index(index) if index else "all"
        status.update(Text(f"{where} → shape {list(apply_index(values, index).shape)}{note}",
                           style="dim"))
        return True

    @on(Input.Submitted, "#vi-slice")
    def _slice_submitted(self, event: Input.Submitted) -> None:
        if self.loaded is None or self.loaded.value is None:
            return
        try:
            index = parse_index(event.value)
        except SliceError as exc:
            self.query_one("#vi-status", Static).update(Text(f"bad slice: {exc}",
                                                              style="bold red"))
            return
        if self._apply(index):
            self.query_one("#vi-grid", ValueGrid).focus()

    # ------------------------------------------------------------ actions
    def action_close(self) -> None:
        """Escape in the slice box returns to the grid; elsewhere it closes the screen."""
        if isinstance(self.focused, Input) and self.loaded is not None:
            self.query_one("#vi-grid", ValueGrid).focus()
            return
        if self.load_worker is not None and self.load_worker.is_running:
            self.load_worker.cancel()
        self.dismiss(None)

    def action_toggle_summary(self) -> None:
        """Hide or show statistics and histogram: small terminals need the rows for values."""
        if self.loaded is not None and self.loaded.stats is not None:
            summary = self.query_one("#vi-summary")
            summary.display = not summary.display

    def action_focus_slice(self) -> None:
        if self.loaded is not None and self.loaded.value is not None:
            self.query_one("#vi-slice", Input).focus()

    def action_first_nonfinite(self) -> None:
        """Jump to the first NaN/∞ in C order: show a 2-D view holding it and mark it."""
        stats = self.loaded.stats if self.loaded else None
        if self.loaded is None or self.loaded.value is None or stats is None:
            return
        first = stats.first_nonfinite
        status = self.query_one("#vi-status", Static)
        if first is None:
            status.update(Text("no NaN or ∞ in this tensor", style="green"))
            return
        values = self.loaded.value.values
        index: Index = (*first[:-2], slice(None), slice(None)) if len(first) > 2 else ()
        self.query_one("#vi-slice", Input).value = format_index(index) if index else ""
        self._apply(index)
        grid = self.query_one("#vi-grid", ValueGrid)
        grid.show_cell(*grid.cell_of(first[-2:] if len(first) > 2 else first))
        value = values[first]
        status.update(Text(f"first NaN/∞ of {stats.n_nonfinite:,}: {grid.fmt(value)} at "
                           f"{list(first)}", style="bold red"))

    def action_save(self) -> None:
        if self.loaded is None or self.loaded.value is None:
            self.notify("nothing to save: no values were recorded for this tensor",
                        severity="warning", markup=False)
            return
        self._save(self.loaded)

    @work(thread=True, group="inspector-save", exit_on_error=False)
    def _save(self, loaded: Loaded) -> str:
        assert loaded.value is not None
        try:
            path = save_npy(loaded.value, loaded.target.file_name.removesuffix(".npy"),
                            self.save_dir)
        except (OSError, ValueError, MemoryError) as exc:
            said = (exc.strerror if isinstance(exc, OSError) and exc.strerror
                    else str(exc) or "out of memory")
            self.app.call_from_thread(self.notify, f"could not save: {literal(said)}",
                                      severity="error", markup=False)
            raise
        self.saved_path = path
        note = " (bfloat16 saved as float32)" if loaded.value.dtype_name == "bfloat16" else ""
        self.app.call_from_thread(self.notify, f"saved to {literal(path)}{note}",
                                  title="tensor saved", markup=False)
        return path


__all__ = ["ValueInspector"]
