"""Where an eager training step (no `tf.function`) begins: at its forward pass, not where the
step before ended its update.

`eager_steps` ends step k with the k-th update of every trained variable. What the user's
loop runs after that update — `print(float(tf.exp(loss)))`, `tf.reduce_mean(loss)` for a
progress line, a metric's update and read — is step k's: it logs step k's tensors. Counted
by position alone it fell in step k + 1 (and the last step's outside every step): a
perplexity that overflowed in step 3's logging said "first ∞ at step 4".

So each gap between two steps' updates is split where the next step's forward pass begins:
the first op of the gap that the next step's backward pass (`tape.gradient`'s ops, found by
their stack frames, and everything after them up to the step's end) reads, directly or
through other ops. That holds the next batch (a `tf.gather` of its rows) and any state the
forward pass carries from the step before (a running centre, an RNN's last state), which
read step k's tensors but feed step k + 1: a rule on reads alone would pull them back a step.
Before that op: step k's. After it, ops the next backward pass does not read go to step k
only when they read what step k made (directly, or through such an op): logging written
after the next batch was fetched.

Before that op, one exception: the next step's set-up. A learning rate assigned at the top
of the loop (`opt.learning_rate = …`, `lr.assign(…)`) feeds no forward op, only the next
step's update, through the variable: the write of a variable the next step reads, and the
ops that feed it, are the next step's unless they read what step k made (`_set_up`).
Counted as step k's, a rate that went NaN at the top of step 6 said "step 5".

The last step has no next forward pass: the ops after its update are its own as far as
they repeat what the loop ran after each earlier update (the same op types, in order),
then those that read what it made (and the ops feeding only those); the rest — an
evaluation after the training — stays outside every step.

A gap none of whose ops the next backward pass reads (no data link was recorded) has no
anchor: it stays as counted by position, the next step's (taking it all for step k moved
every later loss a step back: "loss not recorded in 4 steps").

Reads every execution record of the run, each file opened once and no tensor decoded
(`eager_steps` calls this only for runs of at most its `max_eager` executions).
"""

from __future__ import annotations

import numpy as np

from reader.errors import ReaderError
from reader.index.logdir import DebugLogdir
from reader.io.records import read_records_at
from reader.proto import tfdbg_events_pb2 as pb


def steps_from_forward(logdir: DebugLogdir, types: np.ndarray, ends: np.ndarray,
                       exec_step: np.ndarray, backprop: frozenset[str],
                       writes: np.ndarray) -> np.ndarray:
    """`exec_step` (each execution's step by position: after step k's last update, step
    k + 1) with each gap split where the next forward pass begins (module docstring);
    `writes` says which executions write a variable. Unchanged when a record cannot be
    read."""
    n, m = len(exec_step), len(ends)
    try:
        recs = _executions(logdir, n)
    except ReaderError:
        return exec_step
    ins = [set(r.input_tensor_ids) for r in recs]
    outs = [set(r.output_tensor_ids) for r in recs]
    backward = [not backprop.isdisjoint(r.code_location.stack_frame_ids) for r in recs]
    handles = [int(r.input_tensor_ids[0]) if w and r.input_tensor_ids else None
               for r, w in zip(recs, writes[:n].tolist(), strict=True)]
    out = np.array(exec_step, np.int64)
    start, before = 0, 0  # step k's first execution; the last gap's part before its forward
    for k in range(m):
        lo = int(ends[k]) + 1
        hi = int(ends[k + 1]) if k + 1 < m else n - 1
        made: set[int] = set().union(*outs[start:lo])  # what step k made
        if k + 1 < m:
            seed = next((j for j in range(lo, hi + 1) if backward[j]), hi)
            needed: set[int] = set().union(*ins[seed:hi + 1])
            forward = set()
            for j in range(seed - 1, lo - 1, -1):
                if outs[j] & needed:
                    forward.add(j)
                    needed |= ins[j]
            if forward:
                begin = min(forward)
                rest = [j for j in range(begin, seed) if j not in forward]
            else:  # nothing of the gap feeds the next backward pass: no anchor, no split
                begin, rest = lo, []
            later: set[int] = set().union(*ins[begin:hi + 1])
            setup = _set_up(ins, outs, handles, range(lo, begin), later, made)
            before = (min(setup) if setup else begin) - lo
        else:  # the last step: what repeats the earlier gaps' logging, then its readers
            prev = int(ends[k - 1]) + 1 if k else lo
            same = 0
            while (same < before and lo + same <= hi
                   and types[lo + same] == types[prev + same]):
                same += 1
            begin = lo + same
            rest = list(range(begin, hi + 1))
            setup = set()
        for j in range(lo, begin):
            if j not in setup:
                out[j] = k
                made |= outs[j]
        for j in _readers(ins, outs, rest, made):
            out[j] = k
        start = lo
    return out


def _executions(logdir: DebugLogdir, n: int) -> list[pb.Execution]:
    """The first `n` execution records (their `Execution` messages, tensors not decoded),
    each file opened once."""
    t = logdir.executions
    fsets, offsets = np.asarray(t.lazy("fileset")[np.arange(n)]), np.asarray(t.col("offset"))
    out: list[pb.Execution] = [pb.Execution()] * n
    for fsi in np.unique(fsets).tolist():
        rows = np.flatnonzero(fsets == fsi)
        events = read_records_at(logdir.filesets[fsi].path("execution"),
                                 [int(offsets[i]) for i in rows])
        for i, ev in zip(rows.tolist(), events, strict=True):
            out[i] = ev.execution
    return out


def _set_up(ins: list[set[int]], outs: list[set[int]], handles: list[int | None],
            ops: range, later: set[int], made: set[int]) -> set[int]:
    """Those of `ops` (the gap before the next forward pass) that prepare the next step: a
    write of a variable the next step reads (its handle among `later`, what the next step's
    ops take in: a learning rate assigned at the top of the loop), and the ops whose outputs
    such a write takes in, directly or not — less any that reads what step k made (a metric
    of step k's loss accumulated into a variable is step k's logging). A variable's handle
    is no such link: step 0 made every handle, and a read of the rate it writes is not a
    read of step 0's tensors."""
    setup: set[int] = set()
    needed: set[int] = set()
    for j in reversed(ops):
        h = handles[j]
        if (h is not None and h in later) or outs[j] & needed:
            setup.add(j)
            needed |= ins[j]
    if not setup:
        return setup
    return setup - _readers(ins, outs, list(ops), made.difference(handles))


def _readers(ins: list[set[int]], outs: list[set[int]], ops: list[int],
             made: set[int]) -> set[int]:
    """Those of `ops` (in order) that read `made` or what such an op made, and the ops of
    `ops` whose outputs only they read (`tf.reduce_mean`'s Range of axes)."""
    logs: set[int] = set()
    made = set(made)
    for j in ops:
        if made & ins[j]:
            logs.add(j)
            made |= outs[j]
    readers: dict[int, set[int]] = {}
    producer = {t: j for j in ops for t in outs[j]}
    for r in ops:
        for t in ins[r] & producer.keys():
            readers.setdefault(producer[t], set()).add(r)
    for j in reversed(ops):
        if j not in logs and j in readers and readers[j] <= logs:
            logs.add(j)
    return logs
