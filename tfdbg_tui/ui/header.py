"""The header line: logdir, run, TensorFlow version, modes, counts, alerts, reading state.

It is rebuilt on every snapshot, from the snapshot's counts only (rows below them never
change). It is never cut at the edge: each part has a priority, and when the line does not
fit its width the least needed parts go first (the TensorFlow version, the program name,
then the run, the modes, the counts; the path is shortened from the left before it goes).
The first NaN's step ("first NaN at step 2 of 40") stays too; its numbering ("(steps 0–39)")
goes after the run. The alert count and the reading state ("● live", "idle since…",
"indexing 40%", "✖ reading stopped") always stay — they are what a user looks at the header
for. In compare mode the header says so ("vs B …:" and the verdict), between those and the
counts. The verdict is never cut — how the runs compare is what a comparing user looks for
—; the two paths yield first (shortened from the left to their last folder, then dropped),
then the counts; when even then the whole verdict does not fit beside the alert count and
the reading state, it leaves the line for a row of its own under it (`header_layout`),
wrapped there, never cut: a verdict with its tolerance is often longer than an 80-column
line.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.widgets import Static

from reader import DebugLogdir
from tfdbg_tui.core.liveness import activity, last_growth
from tfdbg_tui.core.model import Snapshot
from tfdbg_tui.core.names import num_hosts
from tfdbg_tui.core.textutil import fit, fit_left, lit


@dataclass
class Part:
    """One piece of the header; lower `drop` goes last (0: never dropped)."""

    text: str
    style: str
    drop: int
    # "left": a path, shortened from the left before it is dropped; "right": a sentence,
    # cut at its end (with "…"); neither shorter than `least` cells
    shrink: str = ""
    least: int = 12
    keep: bool = False  # shortened at its `drop` level like the others, but never dropped
    verdict: bool = False  # compare mode's verdict: whole on the line, or on a row of its own
    glued: bool = False  # one space from the part before, not the gap: it goes on with it


VERDICT_STYLE = "bold #d7afff"


def _verdict(text: str) -> Part:
    """Compare mode's verdict: whole, never shortened (`header_layout` moves it to a row of
    its own when the line cannot hold it)."""
    return Part(text, VERDICT_STYLE, 2, keep=True, verdict=True)


def header_parts(logdir: DebugLogdir, snap: Snapshot, display_path: str, follow: bool,
                 stopped: str | None = None, compare: str | None = None,
                 steps: str | None = None) -> list[Part]:
    """The header's parts in display order (see the module docstring for priorities)."""
    parts = [Part("tfdbg-tui", "bold", 9),
             Part(lit(display_path), "bold #5fd7ff", 2 if compare else 5, shrink="left"),
             Part(f"run {lit(logdir.run_id) or '?'}", "", 6),
             Part(f"TF {lit(logdir.tensorflow_version) or '?'}", "dim", 8),
             Part(lit(", ".join(logdir.tensor_debug_modes) or "mode ?"), "bold", 4)]
    hosts = num_hosts(logdir)
    if hosts > 1:  # their file sets are merged into one timeline
        parts.append(Part(f"{hosts} hosts", "bold", 4))
    parts.append(Part(f"{snap.executions:,} executions · {snap.traces:,} graph tensors", "",
                      3))
    if compare:
        # "vs B <path>: <verdict>": the verdict is never cut (see `place_verdict`); B's path
        # yields first (shortened from the left, then gone), before A's
        where, colon, verdict = compare.partition(": ")
        vs, _, b_path = where.partition(" B ")
        if colon and b_path:
            name = len(b_path.rstrip("/").rsplit("/", 1)[-1]) + 2  # "…name:" stays
            parts += [Part(f"{vs} B", "bold #d7afff", 1),
                      Part(f"{b_path}:", "bold #d7afff", 2, shrink="left", least=name),
                      _verdict(verdict)]
        elif colon:
            parts += [Part(f"{where}:", "bold #d7afff", 1), _verdict(verdict)]
        else:
            parts.append(_verdict(compare))
    n = len(snap.alerts)
    parts.append(Part(f"{n:,} alert{'' if n == 1 else 's'}",
                      "bold #ff5f5f" if n else "green", 0))
    if steps and n:  # "first NaN at step 2 of 40": what a user counted Timeline rows for
        # "(steps 0–39)", saying that steps count from 0: after the run, as needed as the
        # path: the path is shortened first and, level with it, goes first
        head, paren, numbering = steps.partition(" (")
        parts.append(Part(head, "bold #ff5f5f", 1))
        if paren:
            parts.append(Part(f"({numbering}", "#ff5f5f", 5, glued=True))
    warnings = len(logdir.all_warnings()) if not snap.indexing else 0
    if warnings:
        parts.append(Part(f"⚠ {warnings}", "bold yellow", 1))
    if stopped is not None:
        parts.append(Part("✖ reading stopped", "bold #ff5f5f", 0))
    elif snap.indexing:  # the percentage is the progress bar's, beside this line
        parts.append(Part("indexing…", "bold yellow", 0))
    elif follow:
        words, live = activity(last_growth(logdir))
        parts.append(Part(words, "bold green" if live else "dim", 0))
    else:
        parts.append(Part("● read", "bold green", 0))
    return parts


def fit_parts(parts: list[Part], width: int, gap: str = "  ") -> Text:
    """The parts joined by `gap`, dropping (or shortening) the least needed until they fit
    `width` cells; never cut at the edge while droppable parts remain."""
    parts = [replace(p) for p in parts]

    def total() -> int:
        seps = sum(1 if p.glued else cell_len(gap) for p in parts[1:])
        return sum(cell_len(p.text) for p in parts) + seps

    while total() > width:
        over = total() - width
        droppable = [p for p in parts if p.drop and not p.keep]
        worst = max(droppable, key=lambda p: p.drop) if droppable else None
        # a part is shortened before any part as needed as it (or less) is dropped
        short = [p for p in parts if p.shrink and cell_len(p.text) > p.least
                 and (worst is None or p.drop >= worst.drop)]
        if short:
            p = max(short, key=lambda p: p.drop)
            cut = fit_left if p.shrink == "left" else fit
            p.text = cut(p.text, max(p.least, cell_len(p.text) - over))
            continue
        if worst is None:
            break
        parts.remove(worst)
    t = Text(no_wrap=True, overflow="ellipsis")
    for k, p in enumerate(parts):
        if k:
            t.append(" " if p.glued else gap)
        t.append(p.text, p.style)
    return t


def place_verdict(parts: list[Part], width: int) -> tuple[Text, str | None]:
    """The line fitted to `width`, and the verdict when it has to go to a row of its own
    (None when the line holds it whole, or there is none). Off the line, the verdict's
    colon goes with it ("vs B …/run_b" stays, saying which run B is)."""
    line = fit_parts(parts, width)
    verdict = next((p for p in parts if p.verdict), None)
    if verdict is None or cell_len(line.plain) <= width:
        return line, None
    rest = [replace(p, text=p.text[:-1]) if p.text.endswith(":") and p.style == VERDICT_STYLE
            else p for p in parts if not p.verdict]
    return fit_parts(rest, width), verdict.text


def header_layout(logdir: DebugLogdir, snap: Snapshot, display_path: str, width: int,
                  follow: bool, stopped: str | None = None, compare: str | None = None,
                  steps: str | None = None) -> tuple[Text, str | None]:
    """The header for `snap` in `width` cells, and compare mode's verdict when it needs a
    row of its own (see `place_verdict`); `follow` says whether the app keeps reading a
    live logdir; `stopped` is the error that ended reading (then neither "indexing" nor
    "live" holds); `compare` the compare-mode status ("vs B: …")."""
    return place_verdict(
        header_parts(logdir, snap, display_path, follow, stopped, compare, steps), width)


def header_line(logdir: DebugLogdir, snap: Snapshot, display_path: str, width: int,
                follow: bool, stopped: str | None = None, compare: str | None = None,
                steps: str | None = None) -> Text:
    """The header's line alone (see `header_layout`)."""
    return header_layout(logdir, snap, display_path, width, follow, stopped, compare,
                         steps)[0]


class HeaderLine(Static):
    """The header's one line, fitted again whenever its width changes (the progress bar
    beside it comes or goes, the terminal is resized): only a layout knows that width, so a
    fit made just before one ran against the old width and stayed until the next update."""

    def on_resize(self, event: events.Resize) -> None:
        refit = getattr(self.screen, "_update_header", None)
        if refit is not None:
            refit()
