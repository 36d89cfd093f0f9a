"""A learning rate computed by a Keras schedule (`ExponentialDecay`, `InverseTimeDecay`, …):
where the user made the schedule, for a training whose learning rate made it diverge.

A schedule's rate is computed inside the optimizer's update by the schedule's `__call__`
(Keras' `learning_rate_schedule.py`): those ops' user frame is the `apply_gradients` call,
which holds nothing to change. Making a schedule runs no op, so no record says where it was
made. What the record has: where the optimizer was made (its variables, made eagerly in its
`__init__`: `optimizer_ops.made_at`) and that line's source. The optimizer's
`learning_rate` argument (the keyword, or the first positional) is the schedule: written in
the call (`SGD(ExponentialDecay(…))`), that line; a name (`SGD(schedule)`), the last
assignment to it before the call in the same function (`source.argument_lines`). Anything
else — an attribute, the source not recorded — keeps the optimizer's line and says that
where the schedule was made is not known.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from reader.diagnosis.optimizer_ops import made_at
from reader.diagnosis.places import Place
from reader.diagnosis.source import argument_lines
from reader.diagnosis.walk import Walker
from reader.index.frames import Frame

SCHEDULE_FILES = ("learning_rate_schedule.py",)


@dataclass(frozen=True)
class Schedule:
    """Where to change the schedule (or, not known, the optimizer) and what to say of it."""

    place: Place
    said: str


def from_schedule(frames: list[Frame]) -> bool:
    """Whether an op was made by a Keras learning-rate schedule's code."""
    return any(f.file.replace("\\", "/").endswith(SCHEDULE_FILES) for f in frames)


def schedule_place(walker: Walker) -> Schedule | None:
    """Where the schedule the optimizer was given was made (see the module docstring); None
    when the optimizer's creation was not recorded either."""
    made = made_at(walker)
    if made is None or made.user_frame is None:
        return None
    uf = made.user_frame
    name = uf.file.replace("\\", "/").rsplit("/", 1)[-1]
    span = argument_lines(walker.L, uf, "learning_rate", 0)
    if span is None:
        return Schedule(made, f"computed by a learning-rate schedule given to the optimizer "
                              f"made at {name}:{uf.line} (where the schedule was made is not "
                              "recorded: making one runs no op)")
    line = span[0]
    lines = walker.L.source_lines(uf.host, uf.file) or []
    code = lines[line - 1] if 0 < line <= len(lines) else None
    place = replace(made, user_frame=replace(uf, line=line, col=0), code=code)
    return Schedule(place, f"computed by the learning-rate schedule made at {name}:{line} "
                           f"and given to the optimizer made at {name}:{uf.line}")
