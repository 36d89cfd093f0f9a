"""Name the op where a NaN/∞ was born, and say why in words.

`diagnose(logdir, kind, index, slot)` starts from a tensor holding NaN/∞ (an alert, or any
bad graph trace / eager output) and walks back through the recorded inputs — inside graphs,
through inner graphs, across tf.function boundaries and through eager ops (see
`reader.diagnosis.walk`) — to the *origin*: the earliest tensor holding NaN/∞ whose own inputs
were all finite (or not recorded). Then it explains the origin from its inputs' health, op by
op (see `reader.diagnosis.explain`). It reads only a handful of full records; every lookup in
the big tables is a `searchsorted` on an index cached per logdir (`reader.diagnosis.index`).
"""

from __future__ import annotations

import functools
import os
import traceback
from collections.abc import Callable
from typing import ParamSpec, TypeVar

from reader.diagnosis.conclude import conclude
from reader.diagnosis.explain import In
from reader.diagnosis.explain.common import then
from reader.diagnosis.index import Health, Ref, diag_index
from reader.diagnosis.result import Diagnosis, InputHealth
from reader.diagnosis.trail import (
    find_origin,
    in_of,
    is_deliberate_origin,
    nan_from_infinity,
    op_type,
)
from reader.diagnosis.walk import MAX_EAGER_INPUTS, Link, Walker
from reader.errors import ReaderError
from reader.index.frames import Frame
from reader.index.logdir import DebugLogdir
from reader.index.schema import EAGER, GRAPH

P = ParamSpec("P")
T = TypeVar("T")


def _input_health(walker: Walker, link: Link, x: In) -> InputHealth:
    h: Health | None = x.health
    source = walker.name(link.ref) if link.ref is not None else None
    if source is not None and source.split(" ")[0] == link.name:
        source = None
    return InputHealth(link.name, source, h.size if h else None, h.nan if h else None,
                       h.neg_inf if h else None, h.pos_inf if h else None,
                       h.zero if h else None, h.negative if h else None,
                       h.positive if h else None, link.note)


def _validate(L: DebugLogdir, kind: int, index: int, slot: int) -> Ref:
    if kind == GRAPH:
        if not 0 <= index < len(L.traces):
            raise ReaderError(f"no graph trace #{index}")
        return Ref(GRAPH, index, int(L.traces.col("slot")[index]))
    if kind == EAGER:
        if not 0 <= index < len(L.executions):
            raise ReaderError(f"no eager execution #{index}")
        if L.output_row(index, slot) is None:
            raise ReaderError(f"eager execution #{index} has no output {slot}")
        return Ref(EAGER, index, slot)
    raise ReaderError(f"unknown tensor kind {kind}")


def _frames(L: DebugLogdir, ref: Ref) -> list[Frame]:
    try:
        return L.alert_stack(ref.kind, ref.index)
    except ReaderError as exc:
        L.warn(str(exc))
        return []


STRICT_ENV = "TFDBG_TUI_STRICT"


class DiagnosisFailed(ReaderError):
    """The diagnosis of one tensor met data it did not expect (a bug of ours, or a record
    crafted past what the heuristics check). Its message is one line: the exception's type,
    its first line and where it was raised; callers show "diagnosis failed: <message>" for
    that tensor and go on with everything else."""


def _guarded(fn: Callable[P, T]) -> Callable[P, T]:
    """Turn an unexpected exception of `fn` into DiagnosisFailed, unless TFDBG_TUI_STRICT=1
    (the test suites set it: there a diagnosis bug must fail loudly, with its traceback)."""

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return fn(*args, **kwargs)
        except ReaderError:
            raise
        except Exception as exc:  # RecursionError and MemoryError included
            if os.environ.get(STRICT_ENV) == "1":
                raise
            raise DiagnosisFailed(_one_line(exc)) from exc
    return run


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" (at {os.path.basename(where[0].filename)}:{where[0].lineno})" if where else ""
    line = f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")
    return (line[:300] + "…" if len(line) > 300 else line) + at


@_guarded
def diagnose(logdir: DebugLogdir, kind: int, index: int, slot: int = 0) -> Diagnosis:
    """Diagnose the tensor `(kind, index, slot)`: trace row (GRAPH) or execution output (EAGER).

    `slot` is ignored for graph traces (a trace is one output slot already). Raises
    ReaderError for an index that does not exist; never for missing data — that is said in
    the explanation instead. Data it did not expect raises DiagnosisFailed (a ReaderError)
    with one line saying what, so one alert's diagnosis never takes the others down.
    """
    idx = diag_index(logdir)
    with idx.lock:
        start = _validate(logdir, kind, index, slot)
        walker = Walker(idx)
        start_bad = idx.is_bad(start) == 1
        trail = find_origin(walker, start)
        if start_bad and is_deliberate_origin(walker, trail):  # a −∞ mask, or what holds
            # it (tf.fill of it, the where that applies it): the ∞ is not the bug
            trail = nan_from_infinity(walker, start) or trail
        origin = trail.origin
        verdict = conclude(walker, trail)
        if not start_bad:
            verdict.cause, verdict.fix = "none", None
            verdict.explanation = (f"{walker.name(start)} holds no NaN/∞"
                                   + (" (this mode cannot tell)" if idx.is_bad(start) == -1
                                      else "") + "; there is nothing to diagnose.")
        if origin.kind == GRAPH:
            op_name: str | None = logdir.op_name_of_trace(origin.index)
            graph = logdir.graph(logdir.graph_of_trace(origin.index))
        else:
            op_name = None
            gid = idx.exec_graph(origin.index)
            graph = logdir.graph(gid) if gid is not None else None
        frames = _frames(logdir, origin)
        uf = logdir.user_frame(frames)
        ins = [in_of(walker, lk, True) for lk in trail.links]
        for text in trail.inferred:  # an unrecorded Identity crossed on the way: said so
            verdict.explanation = then(verdict.explanation, text)
            verdict.notes.append(text)
        for e, n in sorted(walker.unexamined.items()):
            verdict.explanation += (f" Eager #{e} lists {n:,} inputs: only the first "
                                    f"{MAX_EAGER_INPUTS:,} were examined.")
        return Diagnosis(
            origin_kind=origin.kind, origin_index=origin.index, origin_slot=origin.slot,
            origin_op_type=op_type(walker, origin), origin_op_name=op_name,
            origin_graph_name=(graph.name or None) if graph else None,
            explanation=verdict.explanation,
            inputs=[_input_health(walker, lk, x) for lk, x in zip(trail.links, ins, strict=True)],
            path=trail.path, steps=trail.steps, origin_frames=frames, origin_user_frame=uf,
            origin_code=logdir.code_line(uf) if uf else None, start_bad=start_bad,
            cause=verdict.cause, fix=verdict.fix, forward=verdict.forward,
            write=verdict.write, source=verdict.source, inferred=verdict.inferred,
            origin_device=verdict.origin.device if verdict.origin else None,
            notes=verdict.notes,
        )


__all__ = ["Diagnosis", "DiagnosisFailed", "InputHealth", "diagnose", "fed_by"]


@_guarded
def fed_by(logdir: DebugLogdir, index: int) -> list[int | None]:
    """For graph trace `index`, the trace that fed each input of its op, in input order.

    Exact where names are not: an input that is a tf.function's argument (a Placeholder that
    TensorFlow never traces) resolves to the caller's tensor through the same walk the
    diagnosis uses. None where the feeding tensor was not recorded or is an eager tensor.
    """
    op = logdir.op_of_trace(index)
    if op is None:
        return []
    idx = diag_index(logdir)
    with idx.lock:
        start = _validate(logdir, GRAPH, index, 0)
        links = Walker(idx).inputs(start)[: len(op.inputs)]
    return [lk.ref.index if lk.ref is not None and lk.ref.kind == GRAPH else None
            for lk in links]

