"""Which line each side of a `diff` divergence shows: the line to change, not merely the one
that ran the op. A loss, a learning rate, an update or a state is made by an object (a loss,
schedule, optimizer or layer): B's line becomes the line constructing it, the applying line
kept beside it; a layer's op run by `fit` or by calling a functional model carries only
that call, so the line building the layer is found; a penalty one run lacks is shown at the
weight the other regularizes."""

from __future__ import annotations

from typing import Any

from reader import EAGER, GRAPH, DebugLogdir, ReaderError
from reader.index.frames import Frame
from tfdbg_tui.core.compare import Comparison
from tfdbg_tui.core.compare.creation import drives_keras, find_creation, find_layer_creation
from tfdbg_tui.core.compare.explain import loss_weighting
from tfdbg_tui.core.compare.lines import where_frames


def place_lines(c: Comparison, p: int, quantity: str, a: dict[str, Any], b: dict[str, Any]
                ) -> None:
    """Set each side's `user_frame` (and `created_at`/`applied_at`) for divergence `p`."""
    frames = _where_line(c, p, a, b)
    if quantity in ("learning_rate", "update", "applied_gradient", "loss", "state"):
        # A is the reference run (the program that trains well): its line stays the one
        # applying the schedule/optimizer, the constructor given beside it; B's line becomes
        # the constructor — where the migration's mistake is written and fixed
        # a per-example weighting one run lacks is written at the loss's call: the
        # constructor is then given beside it, not instead
        call = quantity == "loss" and loss_weighting(c, p) is not None
        for entry, logdir, side_frames, move in ((a, c.a, frames[0], False),
                                                 (b, c.b, frames[1], not call)):
            _created_at(entry, logdir, side_frames or _stack_of(logdir, entry), move)
    if quantity in ("layer_output", "other"):
        for entry, logdir in ((a, c.a), (b, c.b)):
            _layer_line(entry, logdir)
    elif quantity == "regularization":
        # a penalty one run lacks: its line there is the read of the weight the other run
        # regularizes, and under `fit` the line building that weight's layer
        for entry, logdir, side_frames, side in ((a, c.a, frames[0], "a"),
                                                 (b, c.b, frames[1], "b")):
            name = _where_op(c, p, side)
            if side_frames and name:
                _layer_line(entry, logdir, where=(side_frames, name))
    elif quantity == "state" and "created_by" not in b:
        # a layer's moving statistics: their momentum and epsilon are written where the
        # layer is built, whichever line calls it
        _layer_line(b, c.b, always=True)  # from a user's `call`: the building line beside


def _where_line(c: Comparison, p: int, a: dict[str, Any], b: dict[str, Any]
                ) -> tuple[list[Frame], list[Frame]]:
    """For a loss or an update, the line is not the tensor's own: the line calling the loss
    function, the line applying the optimizer's update (`StepPairs.where_a/b`). Returns the
    stacks used instead of the tensors' own (empty: the tensor's own)."""
    sp = c.training.sp
    used: list[list[Frame]] = [[], []]
    if sp is None:
        return used[0], used[1]
    from tfdbg_tui.commands.report.build import _frame_dict as frame_dict

    for i, (entry, side, logdir) in enumerate(((a, "a", c.a), (b, "b", c.b))):
        frames = where_frames(c, p, side) or []  # the same lines the TUI shows (`b`)
        uf = logdir.user_frame(frames)
        if uf is None:
            continue
        entry["user_frame"] = {**frame_dict(uf), "code": (logdir.code_line(uf) or "").strip()}
        entry["stack"] = [frame_dict(f) for f in frames]
        used[i] = frames
    return used[0], used[1]


def _where_op(c: Comparison, p: int, side: str) -> str | None:
    """The graph op name of the node standing for pair `p`'s line on `side`, if any."""
    from tfdbg_tui.core.compare.lines import step_offset

    sp = c.training.sp
    got = (sp.where_a if side == "a" else sp.where_b).get(p - step_offset(c)) if sp else None
    if got is None:
        return None
    flow, node = got
    if flow is None or flow.kind != GRAPH:
        return None
    return flow.name[node] if node < len(flow.name) else None


def _stack_of(logdir: DebugLogdir, entry: dict[str, Any]) -> list[Frame]:
    try:
        return logdir.alert_stack(GRAPH if entry["kind"] == "graph" else EAGER, entry["index"])
    except (ReaderError, KeyError, ValueError):
        return []


def _layer_line(entry: dict[str, Any], logdir: DebugLogdir, always: bool = False,
                where: tuple[list[Frame], str] | None = None) -> None:
    """A layer's op run by `model.fit`, or by calling a functional or Sequential model
    (`model(x)` outside any `call` of the user's), carries only that line: the line
    building the layer is the one to show (`creation.find_layer_creation`), the calling
    line moves to `applied_at`. `always`: also from a user's `call` (`self.bn(x)`, kept as
    the line: the building line is given beside it, as `created_at`).
    `where`: the stack and op name of the node whose line stands for the tensor's (a
    penalty one run lacks: the read of the weight the other run regularizes)."""
    uf = entry.get("user_frame") or {}
    # the user's own `call` method calls the layer on this line: kept unless `always`
    in_call = uf.get("function") == "call" and not drives_keras(uf.get("code") or "")
    if in_call and not always:
        return
    names: list[str] = []
    if entry.get("kind") == "graph":
        try:
            graph = logdir.graph(logdir.graph_of_trace(entry["index"]))
            names = list(graph.ops) if graph is not None else []
        except (ReaderError, KeyError, ValueError, IndexError):
            names = []
    frames, op_name = where or (_stack_of(logdir, entry), entry.get("op_name"))
    found = find_layer_creation(logdir, frames, op_name, names)
    if found is None or found.frame is None:
        return
    from tfdbg_tui.commands.report.build import _frame_dict as frame_dict

    entry["created_by"] = found.owner
    created = {**frame_dict(found.frame), "code": found.code}
    if in_call:
        if (uf.get("file"), uf.get("line")) != (created["file"], created["line"]):
            entry["created_at"] = created
        return
    entry["applied_at"] = uf
    entry["user_frame"] = created


def _created_at(entry: dict[str, Any], logdir: DebugLogdir, frames: list[Frame],
                move: bool = True) -> None:
    """A learning rate or an update is made by a schedule/optimizer object: the user changes
    the line creating it, not the one applying it (`core.compare.creation`). The applying
    line moves to `applied_at`; `user_frame` becomes the creating line when exactly one line
    constructs that class, else it stays and `creation_unknown` says why."""
    found = find_creation(logdir, frames)
    if found is None:
        return
    entry["created_by"] = found.owner
    if found.frame is None:
        entry["creation_unknown"] = found.why
        return
    from tfdbg_tui.commands.report.build import _frame_dict as frame_dict

    created = {**frame_dict(found.frame), "code": found.code}
    if not move:
        here = entry.get("user_frame") or {}
        if (here.get("file"), here.get("line")) != (found.frame.file, found.frame.line):
            entry["created_at"] = created
        return
    applied = entry.get("user_frame")
    entry["user_frame"] = created
    if applied and (applied["file"], applied["line"]) != (found.frame.file, found.frame.line):
        entry["applied_at"] = applied
