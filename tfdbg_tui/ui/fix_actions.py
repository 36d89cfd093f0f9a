"""From the line on screen to the fix: open it in the user's editor, save the logdir's copy of
the file, copy `file:line` or a name to the clipboard.

Why a module of its own: these talk to the world outside the app (a subprocess with the
terminal handed over through `App.suspend()`, the file system, the terminal's clipboard
through OSC 52), and the main screen only has to say which frame or name is selected.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.message import Message

from reader import GRAPH, DebugLogdir
from reader.diagnosis import Diagnosis
from reader.index.frames import Frame
from tfdbg_tui.core.editor import (
    UnsafePath,
    editor_argv,
    file_on_this_machine,
    save_source,
    sources_dir,
)
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.bindings import SPECS_BY_ID

if TYPE_CHECKING:
    from tfdbg_tui.ui.main_screen import MainScreen


def _where(frame: Frame) -> str:
    return f"{lit(frame.file)}:{frame.line}"


def open_in_editor(app: App[Any], frame: Frame, save_key: str) -> None:
    """Open `frame`'s file at its line in $VISUAL/$EDITOR, suspending the app meanwhile."""
    if not file_on_this_machine(frame.file):
        app.notify(f"{_where(frame)} is not on this machine; {save_key} writes the logdir's "
                   f"copy of it under {lit(sources_dir())}", severity="warning", timeout=8,
                   markup=False)
        return
    try:
        argv = editor_argv(frame.file, frame.line)
    except UnsafePath as exc:
        app.notify(f"{_where(frame)}: {exc}", severity="warning", markup=False)
        return
    if argv is None:
        app.notify("no editor: set $VISUAL or $EDITOR", severity="warning", markup=False)
        return
    if shutil.which(argv[0]) is None:  # said in the app, the screen never handed over
        app.notify(f"editor {lit(argv[0])} not found: install it, or set $VISUAL or $EDITOR "
                   "to one that is", severity="error", markup=False)
        return
    try:
        try:
            failed: OSError | None = None
            with app.suspend():
                try:  # inside: Textual gives the screen back only when the block ends normally
                    code = subprocess.call(argv)
                except OSError as exc:
                    failed = exc
            if failed is not None:
                raise failed
        except SuspendNotSupported:
            if not app.is_headless:  # a terminal we cannot hand over (e.g. Textual web)
                app.notify(f"cannot hand the terminal to an editor here; open {_where(frame)}",
                           severity="warning", markup=False)
                return
            # no terminal at all (headless runs): the editor runs without one
            code = subprocess.call(argv, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError as exc:
        app.notify(f"could not start {lit(argv[0])}: {lit(exc.strerror or exc)}",
                   severity="error", markup=False)
        return
    app.refresh(layout=True)
    if code:
        app.notify(f"{lit(argv[0])} exited with status {code}", severity="warning",
                   markup=False)


def save_snapshot(app: App[Any], logdir: DebugLogdir, frame: Frame) -> str | None:
    """Write the logdir's copy of `frame`'s file under the save folder; the path written."""
    lines = logdir.source_lines(frame.host, frame.file)
    if lines is None:
        app.notify(f"the logdir holds no copy of {lit(frame.file)}", severity="warning",
                   markup=False)
        return None
    try:
        saved = save_source(frame.file, lines)
    except OSError as exc:
        app.notify(f"not saved: {lit(exc.strerror or exc)}", severity="error", markup=False)
        return None
    done = "already saved" if saved.already else "saved"
    kept = (f"; {lit(saved.beside)} holds other text (edited?) and was kept"
            if saved.beside else "")
    app.notify(f"{done} the logdir's copy as {lit(saved.path)} (line {frame.line}){kept}",
               markup=False)
    return saved.path


def copy_text(app: App[Any], text: str, what: str) -> None:
    """Put `text` on the clipboard (the terminal's, through OSC 52: over SSH too).

    The text is sanitized first: a name from the logdir must not carry escape sequences into
    the terminal, and what is copied is what the user saw.
    """
    shown = lit(text)
    app.copy_to_clipboard(shown)
    app.notify(f"copied {what}: {shown}", markup=False)


@dataclass
class DiagnosisReady(Message):
    """The Alerts pane finished diagnosing alert `position` (the selected one), tensor
    `alert` (kind, index, slot): an earlier alert arriving late moves the alerts after it,
    and a result still queued for the one that was at `position` must not be taken for it."""

    position: int
    alert: tuple[int, int, int]
    diagnosis: Diagnosis | None


class FixActions:
    """The main screen's part that leads to the fix: after Enter on an alert, Source Code
    shows the diagnosis' fix frame (the line the user must change: a gradient's forward op,
    where the data enters, the write into a variable), and the `e`, `w`, `y` keys.

    A mixin of `MainScreen` (kept apart so the screen stays short); `_fix_for` is the alert
    whose diagnosis is awaited, `_stale_frame` a stack frame whose debounced request must not
    replace the fix line shown after it.
    """

    _fix_for: tuple[int, int, int] | None = None  # (alert position, kind, index)
    _fixed: tuple[int, int, Frame] | None = None  # (kind, index) of a tensor, its fix frame
    _stale_frame: Frame | None = None

    @property
    def _s(self) -> MainScreen:
        return cast("MainScreen", self)

    def want_fix(self, position: int, kind: int, index: int) -> None:
        """After following alert `position` (tensor `kind`, `index`): show its fix line now,
        or when its diagnosis arrives."""
        self._fix_for = (position, kind, index)
        alerts = self._s.alerts
        if alerts.diagnosed == position and alerts.diagnosis is not None:
            self._s.show_fix(alerts.diagnosis)

    def on_diagnosis_ready(self, message: DiagnosisReady) -> None:
        if (self._fix_for is not None and message.position == self._fix_for[0]
                and message.alert[:2] == self._fix_for[1:] and message.diagnosis is not None):
            self._s.show_fix(message.diagnosis)

    def show_fix(self, diagnosis: Diagnosis) -> None:
        """Source Code on the fix frame; the Stack Trace selects it when it is in the stack."""
        wanted, self._fix_for = self._fix_for, None
        frame = diagnosis.fix_frame
        if frame is None or wanted is None:
            return
        self._fixed = (wanted[1], wanted[2], frame)
        stack = self._s.stack
        if not stack.select_frame(frame):
            self._stale_frame = stack.selected_frame
        self._s.source.show_frame(frame, self.fix_why(frame))

    def fix_why(self, frame: Frame | None) -> str:
        """What Source Code says of the followed alert's fix line — and, when that line is
        not in the Stack Trace (a gradient fixed in its forward op, data fixed where it
        enters), why the two panes highlight different lines."""
        if frame is None or self._fixed is None or frame != self._fixed[2]:
            return ""
        stack = self._s.stack
        if any((f.file, f.line) == (frame.file, frame.line) for f in stack.frames):
            return "line to change (diagnosis)"
        return "line to change (diagnosis; not in this op's stack)"

    def fix_or(self, kind: int, index: int, frame: Frame | None) -> Frame | None:
        """The frame Source Code shows for tensor (`kind`, `index`): its fix line when it is
        the followed alert's tensor (re-shown as the cursor comes back to it), else `frame`."""
        if self._fixed is None or self._fixed[:2] != (kind, index):
            return frame
        fix = self._fixed[2]
        if not self._s.stack.select_frame(fix) and frame is not None:
            self._stale_frame = self._s.stack.selected_frame
        return fix

    def hold_source_line(self) -> None:
        """Source Code shows a line not selected in Stack Trace (a fix line, the line creating
        an optimizer): the Stack Trace's pending request for its selected frame must not
        replace it."""
        self._stale_frame = self._s.stack.selected_frame

    def forget_stale_frame(self) -> None:
        """A new follow starts: its own frame requests are not stale."""
        self._stale_frame = None

    def stale_frame_request(self, frame: Frame) -> bool:
        """True for a queued request to show the frame the held line replaced. No timer: a
        request arrives whenever the loop gets to it (late on a busy machine); the hold ends
        with a request for another frame (the user moved in Stack Trace) or a new follow."""
        if self._stale_frame is not None and frame == self._stale_frame:
            return True
        self._stale_frame = None
        return False

    # ------------------------------------------------------------------ keys
    def _frame_here(self) -> Frame | None:
        """The stack frame under the cursor (Stack Trace), else Source Code's line."""
        if self._s.current_pane() is self._s.stack and self._s.stack.selected_frame is not None:
            return self._s.stack.selected_frame
        frame, line = self._s.source.frame, self._s.source.view.line
        if frame is None:
            return None
        return frame if not line or line == frame.line else replace(frame, line=line)

    def action_edit_source(self) -> None:
        frame = self._s._frame_here()
        if frame is None:
            self._s.notify("no source line selected (follow an alert or pick a stack frame)",
                        markup=False)
            return
        open_in_editor(self._s.app, frame, self._s._key_shown("source.save"))

    def action_save_source(self) -> None:
        frame = self._s._frame_here()
        if frame is None:
            self._s.notify("no source file selected", markup=False)
            return
        save_snapshot(self._s.app, self._s.state.logdir, frame)

    def action_copy(self) -> None:
        pane = self._s.current_pane()
        logdir = self._s.state.logdir
        if pane is self._s.source or pane is self._s.stack:
            frame = self._s._frame_here()
            if frame is not None:
                copy_text(self._s.app, f"{frame.file}:{frame.line}", "file:line")
                return
        elif pane is self._s.alerts and self._s.alerts.selected_alert() is not None:
            kind, index, slot = self._s.alerts.selected_alert() or (0, 0, 0)
            name = (logdir.trace_name(index) if kind == GRAPH
                    else f"{logdir.op_type_of_execution(index)}:{slot}")
            copy_text(self._s.app, name, "tensor name")
            return
        elif pane is self._s.timeline and self._s.timeline.selected is not None:
            copy_text(self._s.app, logdir.op_type_of_execution(self._s.timeline.selected), "op")
            return
        elif pane is self._s.structure and self._s.structure.selected_name() is not None:
            copy_text(self._s.app, self._s.structure.selected_name() or "", "name")
            return
        elif pane is self._s.ge and self._s.ge.selected is not None:
            copy_text(self._s.app, logdir.trace_name(self._s.ge.selected), "tensor name")
            return
        self._s.notify("nothing to copy here", markup=False)


    def _key_shown(self, binding_id: str) -> str:
        """How binding `binding_id`'s key is shown, after the user's keymap."""
        spec = SPECS_BY_ID[binding_id]
        user = getattr(self._s.app, "user_keymap", None)
        keys = (user.keys.get(binding_id) if user is not None else None) or spec.keys
        return self._s.app.get_key_display(Binding(keys.split(",")[0], spec.action))
