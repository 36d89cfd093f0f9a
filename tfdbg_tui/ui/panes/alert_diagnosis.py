"""The Alerts pane's diagnosis line: the selected alert's (walked in a worker) or, on an
incident's header, its origin's.

`reader.diagnosis.diagnose` may walk many rows, so it runs in a worker thread and a result
whose selection moved on is dropped (`_generation`). A diagnosis walked while the first read
runs may call an input "not recorded" that is only not read yet: it is shown as provisional
and walked again once indexing ends. The line starts with the alert's training step, and its
origin's when that is earlier (a downstream alert's words are its origin's).

A mixin of `AlertsPane`, kept apart from the list and summary it sits under so each module
stays short and says one thing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from rich.text import Text
from textual import work
from textual.worker import get_current_worker

from reader import ReaderError
from reader.diagnosis import Diagnosis, diagnose
from tfdbg_tui.core.textutil import lit
from tfdbg_tui.ui.fix_actions import DiagnosisReady

if TYPE_CHECKING:
    from tfdbg_tui.ui.panes.alerts import AlertsPane


class AlertDiagnosis:
    """The diagnosis line of `AlertsPane`."""

    @property
    def _dp(self) -> AlertsPane:
        return cast("AlertsPane", self)

    def _diagnose(self) -> None:
        p = self._dp
        line = p.diagnosis_box
        alert = p.selected_alert()
        p.diagnosis, p.diagnosed = None, None
        p._generation += 1
        p.provisional = p.state.snapshot.indexing
        k = p.selected_incident()
        inc = p._groups.incident(k) if k is not None and p._groups is not None else None
        if k is not None and inc is None:  # the "not yet grouped" header
            line.update(Text("alerts found since the incidents: they are grouped when the "
                             "incidents are found again", style="dim italic"))
            return
        if inc is not None:  # a header: its origin's diagnosis
            p.diagnosis = inc.diagnosis  # what `o` jumps to
            p._message = (inc.diagnosis.explanation if inc.diagnosis is not None
                          else inc.error or "not diagnosed")
            step = f"step {inc.step}: " if inc.step is not None else ""
            line.update(Text(f"incident {inc.number}, {step}", style="bold")
                        + Text(lit(p._message), style="italic"))
            return
        if alert is None:
            line.update(Text(""))
            return
        line.update(Text("diagnosing…", style="dim italic"))
        p._run_diagnosis(alert, p.selected, p._generation)

    @work(thread=True, exclusive=True, group="diagnosis")
    def _run_diagnosis(self, alert: tuple[int, int, int], position: int | None,
                       generation: int) -> None:
        p = self._dp
        worker = get_current_worker()
        result: Diagnosis | None
        try:
            found = diagnose(p.state.logdir, *alert)
            result, message = found, found.explanation
        except ReaderError as exc:  # DiagnosisFailed included: data the diagnosis did not
            # expect is said on this line and the debugger goes on (with TFDBG_TUI_STRICT=1
            # the original exception propagates and the worker fails, as the tests want)
            result, message = None, f"diagnosis failed: {exc}"
        if not worker.is_cancelled:
            p.app.call_from_thread(p._show_diagnosis, position, alert, result, message,
                                   generation)

    def _show_diagnosis(self, position: int | None, alert: tuple[int, int, int],
                        result: Diagnosis | None, message: str, generation: int) -> None:
        p = self._dp
        if position != p.selected or generation != p._generation:
            return  # the selection moved on; its own diagnosis is on the way
        if p.provisional and not p.state.snapshot.indexing:
            p._diagnose()  # indexing ended meanwhile: walk the finished index instead
            return
        p.diagnosis, p.diagnosed = result, position
        p._message = message
        p._draw_diagnosis()
        if position is not None:
            p.post_message(DiagnosisReady(position, alert, result))

    def _draw_diagnosis(self) -> None:
        """The diagnosis line: the alert's training step first, when the run has steps, and
        its origin's when that is earlier ("step 6, born at step 5: MatMul produced …"): a
        downstream alert's diagnosis is its origin's, and "step 6: MatMul produced +∞" read
        as a MatMul of step 6."""
        p = self._dp
        result, position = p.diagnosis, p.diagnosed
        text = Text()
        if p.provisional:
            text.append("provisional (indexing…): ", "bold yellow")
        step = p.step_at(position) if position is not None else None
        if step is not None:  # and the origin's, when earlier: the words below are of it
            j = p.journey()
            born = (j.steps.step_of(result.origin_kind, result.origin_index)
                    if j is not None and result is not None else None)
            text.append(f"step {step}" + (f", born at step {born}" if born not in (None, step)
                                          else "") + ": ", "bold")
        message = p._message
        # the notes the explanation does not hold already, as a clause of its sentence (the
        # divergence's read "…shows the growth) the weights grow through…")
        notes = [n for n in (result.notes if result is not None else []) if n not in message]
        if notes:
            message = message.rstrip(" .") + "; " + "; ".join(notes) + "."
        text.append(lit(message), "italic")
        p.diagnosis_box.update(text)
