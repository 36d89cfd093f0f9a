"""Stages 1 and 2 for one run: its training steps (`find_steps`) and every step's roles
(`roles`), with the variables' names — a `RunModel`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from reader import GRAPH, DebugLogdir
from tfdbg_tui.core.compare.contract.dataflow import Flow, Training
from tfdbg_tui.core.compare.contract.find_steps import find_training
from tfdbg_tui.core.compare.contract.roles import Roles, Tensor, analyse
from tfdbg_tui.core.compare.contract.state_outside import (
    OutsideState,
    Write,
    inside_writes,
    outside_state,
    step_starts,
)
from tfdbg_tui.core.compare.graphs import OpTable

_SUFFIXES = ("/Cast/ReadVariableOp/resource", "/BiasAdd/ReadVariableOp/resource",
             "/MatMul/ReadVariableOp/resource", "/ReadVariableOp/resource", "/resource")


_ROLE_OF_OP = {"/Cast/": "/kernel", "/MatMul/": "/kernel", "/BiasAdd/": "/bias"}


@dataclass
class RunModel:
    """One run's steps: per global step, its flow, the step within the flow, its roles."""

    training: Training
    steps: list[tuple[Flow, int, Roles]]
    names: dict[str, str]
    cache: dict[tuple[str, int], np.ndarray] = field(default_factory=dict, repr=False)
    # state written between steps, outside the steps' own ops (`state_outside`)
    outside: list[OutsideState] = field(default_factory=list)
    starts: list[float] | None = None  # per step, when its forward pass began (wall time)
    # per step, what its own ops wrote to the state they update (`state_outside.inside_writes`)
    written: list[dict[str, Write]] = field(default_factory=list)

    @property
    def n_steps(self) -> int:
        return len(self.steps)

    def row(self, step: int, t: Tensor | None) -> tuple[int, int] | None:
        """(kind, row) of tensor `t` in global step `step`, or None if not recorded."""
        if t is None or not 0 <= step < len(self.steps):
            return None
        flow, local, _ = self.steps[step]
        node, slot = t
        if node < 0 or slot >= flow.rows.shape[2]:
            return None
        r = int(flow.rows[local, node, slot])
        return (flow.kind, r) if r >= 0 else None


def _sig_table(logdir: DebugLogdir, flow: Flow) -> np.ndarray:
    """(dtype, rank, size) per (node, slot) from the first step of the flow that has it."""
    rows = flow.rows
    out = np.full((*rows.shape[1:], 3), -1, np.int64)
    if not rows.size:
        return out
    best = rows.max(axis=0)  # any recorded row of each tensor (the latest step's)
    has = best >= 0
    table = logdir.traces if flow.kind == GRAPH else logdir.outputs
    picked = best[has]
    if len(picked):
        order = np.argsort(picked)
        sorted_rows = picked[order]
        cols = table.health_columns(sorted_rows) if hasattr(table, "health_columns") else {
            c: np.asarray(getattr(table, c))[sorted_rows] for c in ("dtype", "rank", "size")}
        vals = np.stack([np.asarray(cols[c])[np.argsort(order)] for c in ("dtype", "rank",
                                                                         "size")], axis=1)
        out[has] = vals
    return out


def _name(handle: str, k: int) -> str:
    if handle.startswith("id:"):
        return f"variable {k + 1}"
    name = handle.split("/", 1)[1] if "/" in handle else handle
    for suffix in _SUFFIXES:
        if name.endswith(suffix):
            name = name[:-len(suffix)]
            break
    for op, what in _ROLE_OF_OP.items():  # Keras reads a kernel in its Cast, a bias in BiasAdd
        if suffix.startswith(op) and suffix != "/ReadVariableOp/resource":
            return name + what
    return name


def model_run(logdir: DebugLogdir, ops: OpTable) -> RunModel:
    """Find the run's steps and every step's roles (a graph's roles once for all its steps)."""
    training = find_training(logdir, ops)
    steps: list[tuple[Flow, int, Roles]] = []
    names: dict[str, str] = {}
    cache: dict[tuple[str, int], np.ndarray] = {}
    for flow in training.flows:
        sigs = cache[("sig", id(flow))] = _sig_table(logdir, flow)
        if flow.kind == GRAPH:
            roles = analyse(flow, 0, training.trained, sigs) if len(flow.steps) else Roles()
            steps += [(flow, s, roles) for s in range(len(flow.steps))]
        else:
            steps += [(flow, s, analyse(flow, s, training.trained, sigs))
                      for s in range(len(flow.steps))]
    for _, _, roles in steps[:1]:
        for k, h in enumerate(roles.variables):
            names.setdefault(h, _name(h, k))
    for _, _, roles in steps:
        for k, h in enumerate(roles.variables):
            names.setdefault(h, _name(h, k))
    model = RunModel(training, steps, names, cache)
    model.starts = step_starts(logdir, model) if steps else None
    model.outside = outside_state(logdir, ops, model, training.whole, model.starts)
    model.written = inside_writes(logdir, model)
    return model
