"""What the small corpora's verify.py scripts share: each real program prints its trace (one
`trace [...]` line of per-step losses and, where it trains, weights), and every value must
equal the numpy reference of its variant. Kept in one place so a corpus' script says only
what it claims (which program is which variant, what tells the variants apart)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np


def close(a: object, b: object) -> tuple[bool, float]:
    """Equal within the corpora's tolerance (1e-6 + 1e-5·|b|), and the largest |a − b|."""
    x, y = np.asarray(a, np.float64), np.asarray(b, np.float64)
    return bool((np.abs(x - y) <= 1e-6 + 1e-5 * np.abs(y)).all()), float(np.abs(x - y).max())


def check_traces(here: str, claims: Mapping[tuple[str, ...], Any],
                 reference: Callable[[Any], list[dict[str, Any]]],
                 only: Iterable[str] = ()) -> int:
    """Run each claimed program (`args[0]` in `here`, the rest its arguments) and compare its
    trace with `reference(variant)`, step by step; how many claims fail (each printed).
    `only`: the programs to run (as `" ".join(args)`), all when empty."""
    fails = 0
    wanted = set(only)
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
    for args, variant in claims.items():
        if wanted and " ".join(args) not in wanted:
            continue
        p = subprocess.run([sys.executable, os.path.join(here, args[0]), *args[1:]],
                           capture_output=True, text=True, env=env, timeout=600)
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("trace ")]
        if p.returncode or len(lines) != 1:
            print("FAIL", args, "exit", p.returncode, p.stderr[-500:])
            fails += 1
            continue
        got, want = json.loads(lines[0][6:]), reference(variant)
        worst = 0.0
        for g, w in zip(got, want, strict=True):
            pairs = [(g["loss"], w["loss"])]
            if "weights" in g:
                pairs += list(zip(g["weights"], w["weights"], strict=True))
            for a, b in pairs:
                ok, err = close(a, b)
                worst = max(worst, err)
                if not ok:
                    fails += 1
                    print("FAIL", args, "differs from numpy", variant, a, b)
        print(" ".join(args), f"vs numpy {variant}: max |a-b| {worst:.2g}")
    return fails
