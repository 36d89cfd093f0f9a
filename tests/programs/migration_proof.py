"""The numpy proof of a user-style migration corpus: each corpus's verify.py names its pairs,
its numpy model and how its programs print their trace, and this module proves every pair —
equivalent pairs agree on every quantity of the step contract at every step, each buggy pair
first differs at the claimed step and quantity; the real programs, run once each, must match
their numpy model, and the pairs' real outputs must agree (equivalent) or not (buggy) at the
diff's tolerance. One copy, so a fix to the tolerance or the trace runner reaches every corpus.

Two entry points, both `sys.exit(...)`-ready (0 when no claim fails):
- `main(corpus)`: migration_heldout and migration_fresh.
- `prove(corpus, checks=..., state=...)`: migration_blind3 onward (and new corpora): also
  claims both sides train the same variables, takes `--numpy-only`, and runs the corpus's
  own claims (`checks`: trajectories → [(holds, text)], e.g. no value near a kink).
Helpers for a corpus's numpy model: `central_differences`, `corpus_prepare_data`.
Helpers for a corpus's own claims: `excess` (the diff's tolerance, NaN-aware), `near` (a
float32 run against its float64 model), `first_divergence`, `report`.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


@dataclass
class Corpus:
    here: Path  # the corpus's folder
    pairs: dict[str, Any]
    contract: tuple[str, ...]
    programs: Callable[[], list[str]]
    trajectory: Callable[[str], list[dict[str, Any]]]  # program → its numpy steps
    prepared: str  # a file prepare_data.py writes: present once it ran
    trace_env: str  # the variable that makes a program print its `trace` line
    margin: float = 1.0  # how far past the tolerance a buggy pair's divergence must be



def central_differences(loss: Callable[[], float], p: dict[str, np.ndarray],
                        h: float = 1e-6) -> dict[str, np.ndarray]:
    """Central differences of `loss()` in every element of `p` (changed in place, then
    restored): a numpy model's gradients without writing a backward pass that could share
    the program's mistake."""
    grads = {}
    for n, w in p.items():
        g = np.zeros_like(w)
        for i in np.ndindex(w.shape):
            orig = w[i]
            w[i] = orig + h
            up = loss()
            w[i] = orig - h
            down = loss()
            w[i] = orig
            g[i] = (up - down) / (2 * h)
        grads[n] = g
    return grads


def corpus_prepare_data(models_file: str) -> Any:
    """The prepare_data.py beside `models_file`, loaded by its path under a name of its
    corpus: every corpus has one, and a pytest process that imports two corpora would
    otherwise get the first one's for both."""
    import importlib.util

    here = Path(models_file).parent
    spec = importlib.util.spec_from_file_location(f"{here.name}_prepare_data",
                                                  here / "prepare_data.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

RTOL, ATOL = 1e-5, 1e-6


Claims = list[tuple[bool, str]]  # (holds, what is claimed), in the order printed
Trajectory = list[dict[str, Any]]  # a program's numpy steps (quantity → value), then its end


def _flat(v: Any) -> np.ndarray:
    if v is None:
        return np.zeros(0)
    if isinstance(v, dict):
        return np.concatenate([_flat(v[k]) for k in sorted(v)]) if v else np.zeros(0)
    return np.ravel(np.asarray(v, np.float64))


def excess(a: Any, b: Any, rtol: float = RTOL, atol: float = ATOL) -> float:
    """max |a-b| / (atol + rtol|b|): above 1 means 'differs' for the diff. NaN-aware: a NaN on
    one side only is infinitely far, NaN on both sides agrees (as the diff reads them)."""
    fa, fb = _flat(a), _flat(b)
    if fa.shape != fb.shape:
        return float("inf")
    na, nb = np.isnan(fa), np.isnan(fb)
    if (na != nb).any():
        return float("inf")
    keep = ~na
    if not keep.any():
        return 0.0
    fa, fb = fa[keep], fb[keep]
    return float(np.max(np.abs(fa - fb) / (atol + rtol * np.abs(fb))))


def near(real: Any, model: Any) -> float:
    """How far a real (float32) run is from its float64 model, in units of rtol 1e-4/atol
    1e-5: above 1 means the numpy model is not the program."""
    return excess(real, model, rtol=1e-4, atol=1e-5)


def first_divergence(ta: list[dict[str, Any]], tb: list[dict[str, Any]],
                     contract: tuple[str, ...]) -> tuple[int, str, float] | None:
    """The first (step, quantity, excess) in the contract's order where two trajectories
    differ beyond the diff's tolerance."""
    for k in range(min(len(ta), len(tb)) - 1):
        for q in contract:
            a, b = ta[k][q], tb[k][q]
            if q == "layer_output":
                common = sorted(set(a) & set(b))
                a, b = {n: a[n] for n in common}, {n: b[n] for n in common}
            if (a is None) != (b is None):
                return k, q, float("inf")
            e = excess(a, b)
            if e > 1.0:
                return k, q, e
    return None


def run_programs(c: Corpus, data_dir: Path, python: str) -> dict[str, dict[str, Any]]:
    """program → its `trace` line, parsed (cached under DATA_DIR/trace/, keyed by its text)."""
    if not (data_dir / c.prepared).exists():
        subprocess.run([python, str(c.here / "prepare_data.py"), str(data_dir)], check=True,
                       env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3"), capture_output=True)
    out_dir = data_dir / "trace"
    out_dir.mkdir(exist_ok=True)

    def one(program: str) -> tuple[str, dict[str, Any]]:
        key = hashlib.sha256((c.here / program).read_bytes()).hexdigest()[:12]
        cached = out_dir / f"{program}.{key}.json"
        if not cached.exists():
            p = subprocess.run([python, str(c.here / program), str(data_dir)], text=True,
                               capture_output=True, timeout=900,
                               env=dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3",
                                        PYTHONHASHSEED="0", **{c.trace_env: "1"}))
            lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
            if p.returncode or not lines:
                raise SystemExit(f"{program}: exit {p.returncode}\n{p.stderr[-2000:]}")
            cached.write_text(lines[-1][6:])
        return program, json.loads(cached.read_text())

    with ThreadPoolExecutor(2) as pool:
        return dict(pool.map(one, c.programs()))


def main(c: Corpus) -> int:
    """Prove every pair of corpus `c` (see the module docstring); 0 when no claim fails."""
    args = _arguments(numpy_only=False)
    traj = {p: c.trajectory(p) for p in c.programs()}
    claims = numpy_claims(c, traj)

    real = run_programs(c, args.data_dir, args.python)
    for program, tr in real.items():
        model = traj[program]
        losses = [s["loss_total"] for s in model[:-1]]
        e_loss = float(np.max(np.abs(np.array(tr["loss"]) - losses)
                              / (1e-5 + 1e-4 * np.abs(losses))))
        final = model[-1]["variable"]
        e_w = max(float(np.max(np.abs(np.array(tr["weights"][n]) - final[n])
                               / (1e-5 + 1e-4 * np.abs(final[n])))) for n in final)
        e_s = 0.0
        if model[-2]["state"] is not None:
            st = model[-2]["state"]
            e_s = max(float(np.max(np.abs(np.array(tr["state"][n]) - st[n])
                                   / (1e-5 + 1e-4 * np.abs(st[n])))) for n in st)
        claims.append((max(e_loss, e_w, e_s) <= 1.0,
                       f"{program}: real run = numpy model (losses, final weights, state within "
                       f"rtol 1e-4/atol 1e-5: worst {max(e_loss, e_w, e_s):.2g} of it)"))
    claims += real_pair_claims(c, real, "losses, final weights, state", state=True)
    return report(claims)


def prove(c: Corpus, checks: Callable[[dict[str, Trajectory]], Claims] | None = None,
          state: bool = False) -> int:
    """Prove corpus `c` from the command line `verify.py DATA_DIR [--python PY] [--numpy-only]`.

    In order: per pair, both sides run `steps` steps and train the same variables, and the
    numpy first divergence is the claimed one (at least `c.margin` times the tolerance) or
    none; then `checks(trajectories)`, the corpus's own claims; then (unless --numpy-only)
    each real program equals its numpy model (losses and final weights, and the final
    `state` when `state` is true: the programs print it) and each pair's real outputs agree
    or differ as claimed. 0 when no claim fails.
    """
    args = _arguments(numpy_only=True)
    traj = {p: c.trajectory(p) for p in c.programs()}
    claims = numpy_claims(c, traj, same_variables=True)
    claims += checks(traj) if checks else []
    if args.numpy_only:
        return report(claims)

    what = "losses, final weights and state" if state else "losses and final weights"
    real = run_programs(c, args.data_dir, args.python)
    for program, tr in real.items():
        final = traj[program][-1]["variable"]
        st = (traj[program][-1]["state"] or {}) if state else {}
        printed = tr.get("state", {}) if state else {}
        same = set(tr["weights"]) == set(final) and set(printed) == set(st)
        e_loss = near(tr["loss"], [s["loss_total"] for s in traj[program][:-1]])
        e_w = max([near(tr["weights"][n], final[n]) for n in final]
                  + [near(printed[n], st[n]) for n in st]) if same else np.inf
        claims.append((max(e_loss, e_w) <= 1.0,
                       f"{program}: real run = numpy model ({what} within "
                       f"rtol 1e-4/atol 1e-5: worst {max(e_loss, e_w):.2g} of it)"))
    claims += real_pair_claims(c, real, what, state)
    return report(claims)


def report(claims: Claims) -> int:
    """Print one line per claim and "N of M claims fail"; the exit status (0 if none fail)."""
    for ok, text in claims:
        print(("ok   " if ok else "FAIL ") + text)
    fails = sum(not ok for ok, _ in claims)
    print(f"{fails} of {len(claims)} claims fail")
    return 1 if fails else 0


def _arguments(numpy_only: bool) -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--python", default=sys.executable)
    if numpy_only:
        ap.add_argument("--numpy-only", action="store_true")
    return ap.parse_args()


def numpy_claims(c: Corpus, traj: dict[str, Trajectory], same_variables: bool = False
                 ) -> Claims:
    """Per pair: both sides run its steps (and train the same variables, if asked), and the
    numpy first divergence is none (equivalent) or the claimed (step, quantity), at least
    `c.margin` times the tolerance (buggy: a clear divergence, float32 noise is far below)."""
    claims: Claims = []
    for name, pair in c.pairs.items():
        ta, tb = traj[pair.a], traj[pair.b]
        claims.append((len(ta) == len(tb) == pair.steps + 1,
                       f"{name}: {pair.steps} steps on both sides"))
        if same_variables:
            claims.append((set(ta[0]["variable"]) == set(tb[0]["variable"]),
                           f"{name}: the same trainable variables on both sides"))
        got = first_divergence(ta, tb, c.contract)
        if pair.exit == 0:
            worst = max(excess(ta[k][q], tb[k][q]) for k in range(pair.steps) for q in c.contract
                        if q != "layer_output")
            claims.append((got is None, f"{name}: numpy equivalent at every step and quantity "
                                        f"(worst excess {worst:.2g} of the tolerance; got {got})"))
        else:
            ok = got is not None and got[:2] == (pair.step, pair.quantity) and got[2] >= c.margin
            margin = f"{got[2]:.3g}x the tolerance" if got else "none"
            claims.append((ok, f"{name}: numpy first divergence {got[:2] if got else None} "
                               f"(expected {(pair.step, pair.quantity)}), margin {margin}"))
    return claims


def real_pair_claims(c: Corpus, real: dict[str, dict[str, Any]], what: str, state: bool
                     ) -> Claims:
    """Per pair: the real A and B outputs (losses, final weights, and the printed state if
    `state`) agree at the diff's tolerance (equivalent) or not (buggy); `what` names them."""
    claims: Claims = []
    for name, pair in c.pairs.items():
        ra, rb = real[pair.a], real[pair.b]
        e = max(excess(ra["loss"], rb["loss"]),
                *(excess(ra["weights"][n], rb["weights"][n]) for n in ra["weights"]),
                *(excess(ra["state"][n], rb["state"][n])
                  for n in (ra.get("state", {}) if state else ())))
        if pair.exit == 0:
            claims.append((e <= 1.0, f"{name}: real A and B agree at the diff's tolerance "
                                     f"({what}; worst {e:.2g} of it)"))
        else:
            claims.append((e > 1.0, f"{name}: real A and B differ ({e:.3g}x the tolerance)"))
    return claims
