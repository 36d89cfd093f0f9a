"""Proves with numpy, without tfdbg-tui, that every pair of the corpus is what EXPECTATIONS.md
says: each program runs once without dumping (LOGDIR '-') and prints its trace (the values of
the step contract it can observe, see corpus_common.py); this compares A's and B's.

Usage: python verify.py [DIR]    (the TensorFlow of this interpreter; traces cached in DIR,
                                  default a temporary folder; two programs at a time)
Prints each claim with its numbers and "N of M claims fail" last; exit 0 only if none fail.
Tolerance: the diff's, |a-b| <= 1e-6 + 1e-5 |b| (np.allclose).

For each pair, the first (step, quantity) in the contract's order where the quantities both
sides print differ: an equivalent pair must have none (and must have compared the loss, the
variables and the updates of every step), a buggy pair must have its expected one. A `fit`
side prints no layer outputs or gradients; where a buggy pair's expected quantity is hidden
that way, the claim is that everything visible before it agrees and what comes after it
differs, and bninf_fit's loss is reproduced in numpy from the mistake as described.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from corpus_pairs import PAIRS, QUANTITIES, recording_name, recordings  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6
Trace = list[dict[str, Any]]


def run(py: str, folder: str, name: str, program: str, variant: str) -> str | None:
    out = os.path.join(folder, name + ".trace")
    newest = max(os.path.getmtime(os.path.join(HERE, f)) for f in os.listdir(HERE)
                 if f.endswith(".py"))
    if os.path.exists(out) and os.path.getmtime(out) > newest:
        return None
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    p = subprocess.run([py, os.path.join(HERE, program), "-", "--variant", variant],
                       capture_output=True, text=True, timeout=900, env=env)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
    if p.returncode or len(lines) != 1:
        return f"{name}: exit {p.returncode}\n{p.stderr[-2000:]}"
    with open(out, "w") as f:
        f.write(lines[0][len("trace "):])
    return None


def load(folder: str, name: str) -> Trace:
    with open(os.path.join(folder, name + ".trace")) as f:
        return json.load(f)


def _arrays(step: dict[str, Any], q: str) -> dict[str, np.ndarray] | None:
    """Quantity q of one step as {name: array}, or None when the side does not print it."""
    if q == "update":
        if "variable" not in step or "variable_after" not in step:
            return None
        return {k: np.subtract(step["variable_after"][k], step["variable"][k], dtype=np.float64)
                for k in step["variable"]}
    if q == "loss" and "loss" not in step:
        return None
    key = {"loss": "loss"}.get(q, q)
    if key not in step:
        return None
    v = step[key]
    return {k: np.asarray(x, np.float64) for k, x in v.items()} if isinstance(v, dict) else \
        {"": np.asarray(v, np.float64)}


ORDER = [*QUANTITIES[:4], "total_loss", *QUANTITIES[4:]]  # the total after its terms


def compare(a: Trace, b: Trace) -> tuple[list[tuple[int, str, float, list[str]]], set]:
    """([(step, quantity, max |a-b|, differing names)] in contract order, compared set)."""
    found, compared = [], set()
    for k in range(min(len(a), len(b))):
        for q in ORDER:
            qa, qb = _arrays(a[k], q), _arrays(b[k], q)
            if qa is None or qb is None:
                continue
            common = [n for n in qa if n in qb]
            if not common:
                continue
            compared.add((k, q))
            bad = [n for n in common if qa[n].shape != qb[n].shape
                   or not np.allclose(qa[n], qb[n], rtol=RTOL, atol=ATOL)]
            if bad:
                err = max(float(np.max(np.abs(qa[n] - qb[n]))) if qa[n].shape == qb[n].shape
                          else float("inf") for n in bad)
                found.append((k, "loss" if q == "total_loss" else q, err, bad))
    return found, compared


def _xent(logits: np.ndarray, y: np.ndarray) -> float:
    z = logits - logits.max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return float(-logp[np.arange(len(y)), y].mean())


def bninf_fit_loss(a: Trace) -> float:
    """B's step-0 loss if its BN normalizes with the batch's statistics (the mistake), from
    A's conv output and A's (= B's) variables."""
    sys.path.insert(0, HERE)
    from corpus_common import conv_data

    s, conv = a[0], np.asarray(a[0]["layer_output"]["conv"], np.float64)
    v = {k: np.asarray(x, np.float64) for k, x in s["variable"].items()}
    mean, var = conv.mean(axis=(0, 1, 2)), conv.var(axis=(0, 1, 2))
    bn = (conv - mean) / np.sqrt(var + 1e-5) * v["bn/gamma"] + v["bn/beta"]
    flat = np.maximum(bn, 0).reshape(len(conv), -1)
    return _xent(flat @ v["logits/kernel"] + v["logits/bias"], conv_data()["y"])


def main() -> int:
    folder = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="corpus-verify-")
    os.makedirs(folder, exist_ok=True)
    runs = recordings()
    with ThreadPoolExecutor(2) as pool:
        errors = [e for e in pool.map(lambda n: run(sys.executable, folder, n, *runs[n]), runs)
                  if e]
    if errors:
        print("\n".join(errors))
        return 2
    claims: list[tuple[bool, str]] = []
    for name, pair in PAIRS.items():
        a, b = load(folder, recording_name(pair.a)), load(folder, recording_name(pair.b))
        found, compared = compare(a, b)
        first = found[0] if found else None
        qs = sorted({q for _, q in compared}, key=ORDER.index)
        steps_ok = len(a) == len(b) == 3
        if pair.exit == 0:
            covered = all((k, "variable") in compared and (k, "update") in compared and
                          ((k, "loss") in compared or (k, "total_loss") in compared)
                          for k in range(3))
            ok = steps_ok and first is None and covered
            text = (f"{name}: equivalent — nothing differs over {len(compared)} (step, quantity) "
                    f"cells ({', '.join(qs)})" if first is None else
                    f"{name}: expected equivalent, differs first at step {first[0]} "
                    f"{first[1]} {first[3]} (max |diff| {first[2]:.3g})")
            if not covered:
                text += " [variables, loss or updates not compared at every step]"
            claims.append((ok, text))
            continue
        want = (pair.step, pair.quantity)
        hidden = [q for q in ORDER if q != "total_loss" and (pair.step, q) not in compared]
        if first is not None and (first[0], first[1]) == want:
            claims.append((steps_ok, f"{name}: first divergence step {first[0]} {first[1]} "
                           f"{first[3]} (max |diff| {first[2]:.3g}); compared: {', '.join(qs)}"))
        elif (first is not None and pair.quantity in hidden and first[0] == pair.step
              and ORDER.index(first[1]) > ORDER.index(pair.quantity)
              and all((k, "variable") in compared for k in range(pair.step + 1))):
            claims.append((steps_ok, f"{name}: {pair.quantity} not printed by B (fit); "
                           f"everything visible before it agrees, then step {first[0]} "
                           f"{first[1]} differs (max |diff| {first[2]:.3g})"))
        else:
            got = "nothing" if first is None else f"step {first[0]} {first[1]} {first[3]}"
            claims.append((False, f"{name}: expected step {want[0]} {want[1]}, first "
                           f"divergence {got}"))
    a = load(folder, recording_name(PAIRS["bninf_fit"].a))
    b = load(folder, recording_name(PAIRS["bninf_fit"].b))
    got, want_loss = float(b[0]["total_loss"]), bninf_fit_loss(a)
    claims.append((bool(np.isclose(got, want_loss, rtol=1e-4)),
                   f"bninf_fit: B's step-0 loss {got:.7g} = numpy's BN on batch statistics "
                   f"{want_loss:.7g} (A's {a[0]['loss']:.7g})"))
    for ok, text in claims:
        print(("ok   " if ok else "FAIL ") + text)
    fails = sum(not ok for ok, _ in claims)
    print(f"{fails} of {len(claims)} claims fail")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
