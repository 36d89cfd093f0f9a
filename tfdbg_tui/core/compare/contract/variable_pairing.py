"""Which variable of run A is which of run B: the user's `--map` first (name patterns from A
to B), then the forward pass's order by dtype class and shape (`difflib` on the signatures,
so a variable one side lacks stays unpaired without shifting the rest), then what the order
left by signature and shared name words. Apart from `pairing`, which pairs a step's
quantities once the variables are paired, because this is the one place names count.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import TYPE_CHECKING

from tfdbg_tui.core.compare.contract.tensors import Sig, sig_class

if TYPE_CHECKING:
    from tfdbg_tui.core.compare.contract.model import RunModel
    from tfdbg_tui.core.compare.contract.roles import Roles

Mapping = list[tuple[re.Pattern[str], re.Pattern[str]]]  # --map: A pattern → B pattern


def read_map(text: str) -> list[tuple[re.Pattern[str], re.Pattern[str]]]:
    """`--map` lines `A_PATTERN = B_PATTERN` (regexes searched in variable names); `#`
    comments and blank lines skipped. ValueError (one line) on a bad line."""
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        a, sep, b = line.partition("=")
        if not sep or not a.strip() or not b.strip():
            raise ValueError(f"line {n}: expected 'A_PATTERN = B_PATTERN'")
        try:
            out.append((re.compile(a.strip()), re.compile(b.strip())))
        except re.error as exc:
            raise ValueError(f"line {n}: {exc}") from None
    return out


def pair_variables(ma: RunModel, ra: Roles, mb: RunModel, rb: Roles,
                    mapping: list[tuple[re.Pattern[str], re.Pattern[str]]]
                    ) -> list[tuple[str, str]]:
    """Variable pairs: the user's mapping first, then forward order × dtype class and shape."""
    pairs: list[tuple[str, str]] = []
    left, right = list(ra.variables), list(rb.variables)
    for pa, pb in mapping:
        for ha in list(left):
            if pa.search(ma.names.get(ha, "")):
                hit = [hb for hb in right if pb.search(mb.names.get(hb, ""))]
                if hit:
                    pairs.append((ha, hit[0]))
                    left.remove(ha)
                    right.remove(hit[0])
    sa = [sig_class(ra.sig[h]) for h in left]
    sb = [sig_class(rb.sig[h]) for h in right]
    m = SequenceMatcher(None, sa, sb, autojunk=False)
    done_a: set[int] = set()
    done_b: set[int] = set()
    for block in m.get_matching_blocks():
        for i in range(block.size):
            pairs.append((left[block.a + i], right[block.b + i]))
            done_a.add(block.a + i)
            done_b.add(block.b + i)
    # what the order left: a layer may read its weights in another order (a recurrent cell's
    # input kernel, bias and recurrent kernel) — pair by signature, in order within one
    rest_b: dict[Sig, list[int]] = {}
    for j, s in enumerate(sb):
        if j not in done_b:
            rest_b.setdefault(s, []).append(j)
    # where several are alike, the one whose name shares most words (`value/bias` and
    # `attention/value_1/...`), then the first
    words_a = [_words(ma.names.get(h, "")) for h in left]
    words_b = [_words(mb.names.get(h, "")) for h in right]

    def best(i: int, cands: list[int]) -> int:
        return max(cands, key=lambda j: (len(words_a[i] & words_b[j]), -j))

    for i, s in enumerate(sa):
        if i not in done_a and rest_b.get(s):
            j = best(i, rest_b[s])
            rest_b[s].remove(j)
            pairs.append((left[i], right[j]))
            done_a.add(i)
    # then by dtype class and size alone: a kernel one run keeps with a head axis
    # (`[8, 2, 4]` against `[8, 8]`), compared as a regrouping of the same elements
    rest = [(i, s) for i, s in enumerate(sa) if i not in done_a]
    free_b = [j for js in rest_b.values() for j in js]
    for i, s in rest:
        cands = [j for j in free_b if (sb[j][0], sb[j][2]) == (s[0], s[2])]
        if cands:
            j = best(i, cands)
            pairs.append((left[i], right[j]))
            free_b.remove(j)
    return pairs


def _words(name: str) -> set[str]:
    """The words of a variable's name, without Keras' uniquifying numbers."""
    return {re.sub(r"_\d+$", "", w) for w in re.split(r"[/:]", name.lower()) if w} - {""}
