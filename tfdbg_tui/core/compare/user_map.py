"""A variable map (`diff --map FILE`, `tfdbg-tui A --compare B --map FILE`): its rules with
their line numbers, and what is said of a rule that paired nothing. In core because both the
diff command and the app's compare mode use it (same rules, same warnings).

Why: a map is typed by hand, and a rule that matches no variable (a typo in a name, the
sides swapped, a pattern for a layer the run does not have) changed nothing — before, it was
ignored in silence and the user took the verdict for one made with their pairing. So each
such rule is one warning line naming the file and the line, saying which side matched
nothing; a line that cannot be a rule at all is an error (exit 2) naming its line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tfdbg_tui.core.compare import Comparison

Rule = tuple[int, re.Pattern[str], re.Pattern[str]]


def map_rules(text: str) -> list[Rule]:
    """The rules `A_PATTERN = B_PATTERN` of a map, with their line numbers (1-based); `#`
    comments and blank lines skipped. ValueError naming the line for a line without `=`, a
    side empty, a pattern holding a space (no variable name has one: `a = b = c` and
    `w1 dense/kernel = x` are typos, not rules) or a regex that does not compile."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        a, sep, b = (part.strip() for part in line.partition("="))
        if not sep or not a or not b:
            raise ValueError(f"line {n}: expected 'A_PATTERN = B_PATTERN'")
        if any(ch.isspace() for ch in a + b):
            raise ValueError(f"line {n}: a pattern holds a space or a second '=' (expected "
                             "'A_PATTERN = B_PATTERN'; variable names have no spaces)")
        try:
            out.append((n, re.compile(a), re.compile(b)))
        except re.error as exc:
            raise ValueError(f"line {n}: {exc}") from None
    return out


def unused(rules: list[Rule], comparison: Comparison) -> list[str]:
    """Why each rule paired no variables, as `line N: …` (none: every rule paired some)."""
    sp = comparison.training.sp
    if not rules:
        return []
    if sp is None:
        return ["not used: the two runs' training steps were not both found, so no "
                "variables were paired (a map pairs variables)"]
    names_a = [a for a, _ in sp.variables] + list(sp.unpaired_a)
    names_b = [b for _, b in sp.variables] + list(sp.unpaired_b)
    out = []
    for n, pa, pb in rules:
        if any(pa.search(a) and pb.search(b) for a, b in sp.variables):
            continue
        if not any(pa.search(a) for a in names_a):
            why = f"{pa.pattern!r} matches no variable of A"
        elif not any(pb.search(b) for b in names_b):
            why = f"{pb.pattern!r} matches no variable of B"
        else:
            why = "pairs nothing (what it matches was paired otherwise, by an earlier line)"
        out.append(f"line {n}: {why}; ignored")
    return out


@dataclass(frozen=True)
class CompareMap:
    """A map the user gave compare mode (`tfdbg-tui A --compare B --map FILE`): its file,
    for the warnings, and its rules, read and checked before the app started."""

    path: str
    rules: list[Rule]

    @property
    def mapping(self) -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
        """The (A pattern, B pattern) pairs `compare(mapping=…)` obeys."""
        return [(pa, pb) for _, pa, pb in self.rules]

    def warnings(self, comparison: Comparison) -> list[str]:
        """One line per rule that paired nothing, worded as `diff --map`'s warnings."""
        return [f"--map {self.path}: {why}" for why in unused(self.rules, comparison)]
