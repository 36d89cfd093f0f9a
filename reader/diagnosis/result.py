"""What a diagnosis answers, as data for the report, the panes and machines.

The origin is the tensor where the NaN/∞ was born (`origin_*`, kept flat for the panes).
Around it: `cause` — the kind of bug in one word ("forward", "gradient", "data", "variable",
"divergence", "function"); `fix` — the place whose line the user must change, which is not
always the origin's (a gradient is fixed in the forward code, data where it enters the program,
a divergence where the learning rate is set);
`forward`, `write`, `source` — the other places the explanation names; `inferred` — true
when the origin op is deduced rather than recorded (gradient functions TensorFlow does not
trace), which the explanation then says in words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from reader.diagnosis.places import Place
from reader.index.frames import Frame
from reader.index.schema import GRAPH

CAUSES = ("forward", "gradient", "data", "variable", "divergence", "function", "none")


@dataclass(frozen=True)
class InputHealth:
    """One input of the origin op, as the diagnosis saw it (None = not recorded)."""

    name: str
    source: str | None  # the recorded tensor that holds its value, when it differs from name
    size: int | None
    nan: int | None
    neg_inf: int | None
    pos_inf: int | None
    zero: int | None
    negative: int | None
    positive: int | None
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "nan": self.nan,
                "neg_inf": self.neg_inf, "pos_inf": self.pos_inf, "zero": self.zero,
                "negative": self.negative, "positive": self.positive, "size": self.size}


@dataclass(frozen=True)
class Diagnosis:
    """Where a NaN/∞ was born and why. `origin_*` identify the tensor (`kind` GRAPH/EAGER)."""

    origin_kind: int
    origin_index: int
    origin_slot: int
    origin_op_type: str
    origin_op_name: str | None  # None for eager ops
    origin_graph_name: str | None
    explanation: str
    inputs: list[InputHealth]
    path: list[str]  # tensor names from the starting tensor back to the origin
    steps: list[str] = field(default_factory=list)  # where ∞ turned into NaN on the way
    origin_frames: list[Frame] = field(default_factory=list)  # creation / execution stack
    origin_user_frame: Frame | None = None
    origin_code: str | None = None  # the user frame's line of code
    start_bad: bool = True  # False when the starting tensor held no NaN/∞
    cause: str = "forward"  # one of CAUSES
    fix: Place | None = None  # the place to change (its user frame is the line)
    forward: Place | None = None  # for a gradient op: the forward op it differentiates
    write: Place | None = None  # for a variable: the write that put the NaN/∞ there
    source: Place | None = None  # data: where it enters; deliberate ∞: the constant
    origin_device: str | None = None
    inferred: Place | None = None  # an op deduced inside an untraced function call
    notes: list[str] = field(default_factory=list)

    @property
    def fix_frame(self) -> Frame | None:
        """The line the user must change (None when the data cannot say)."""
        return self.fix.user_frame if self.fix is not None else None

    def to_json(self) -> dict[str, Any]:
        uf = self.origin_user_frame
        origin: dict[str, Any] = {
            "kind": "graph" if self.origin_kind == GRAPH else "eager",
            "index": self.origin_index, "slot": self.origin_slot,
            "op_type": self.origin_op_type, "op_name": self.origin_op_name,
            "graph_name": self.origin_graph_name, "device": self.origin_device,
            "cause": self.cause, "data": self.cause == "data",
            "user_frame": ({"file": uf.file, "line": uf.line, "function": uf.function,
                            "code": (self.origin_code or "").strip()} if uf else None),
            "fix_frame": self.fix.frame_json() if self.fix is not None else None,
            "forward": self.forward.to_json() if self.forward is not None else None,
            "write": self.write.to_json() if self.write is not None else None,
            "source": self.source.to_json() if self.source is not None else None,
            "inferred": self.inferred.to_json() if self.inferred is not None else None,
        }
        return {
            "origin": origin,
            "explanation": self.explanation,
            "inputs": [i.to_json() for i in self.inputs],
            "path": list(self.path),
            "steps": list(self.steps),
            "notes": list(self.notes),
        }
