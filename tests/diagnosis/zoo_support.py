"""The zoo's expectations, read from the programs themselves, and the checks against a report.

Every program under tests/programs/zoo/ states what a correct diagnosis says in a header
of `# EXPECT key: value` comments and marks the one line the user must change with a
trailing `# FIX` comment. Nothing here looks at what the tool says today: the expectation
comes from the program's text, the verdict from `tfdbg-tui report --json`.

Header keys (one per line, in the program's first lines):
    origin_op           op type(s) where the NaN/∞ is born; `|` separates alternatives, each
                        an fnmatch pattern (only where TensorFlow itself leaves it ambiguous)
    cause               words a correct explanation must contain: `,` separates required
                        terms, `|` alternatives within a term; case-insensitive, with
                        "−" read as "-" and "∞" as "inf" on both sides; an occurrence right
                        after "0", "no", "not", "without" or "never" does not count
    kind                forward | gradient | data | variable | divergence
    forward_op          (gradient) the forward op whose derivative failed
    write_op            (variable) the op type of the write that put the NaN in the variable
    eager_alert_origin  the alert of the eager call that returned the NaN is explained by
                        this op inside the function, at the FIX line
    fix_at              `op`: (gradient) the FIX line is the gradient op's own line, because
                        the user wrote that gradient (tf.custom_gradient), not the forward op's
    device              the origin ran on this device (origin.device ends with it), e.g.
                        CPU:1 for a replica of a MirroredStrategy
    deliberate          the first alert is a ±∞ constant of this op type put there on
                        purpose; its diagnosis goes on to where NaN appears (origin_op) and
                        names the constant as origin.source
    fix_op              (forward) the FIX line is not the origin's but that of the op of
                        this type that made the origin's bad input from finite values (a
                        float16 underflow), named as origin.source
    absent              phrases a correct explanation must not contain (`|` separates them):
                        a wrong reason the tool once gave, or a repeated phrase
"""

from __future__ import annotations

import ast
import io
import os
import time
import tokenize
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from support.report_run import report_json
from support.tf_fork import run_program as run_tf

ZOO = Path(__file__).resolve().parents[1] / "programs" / "zoo"
KINDS = ("forward", "gradient", "data", "variable", "divergence")
_KEYS = {"origin_op", "cause", "kind", "forward_op", "write_op", "eager_alert_origin",
         "deliberate", "device", "fix_at", "fix_op", "absent"}


@dataclass(frozen=True)
class ZooProgram:
    """One zoo program and what a correct diagnosis of its first NaN/∞ says."""

    path: Path
    origin_ops: tuple[str, ...]
    causes: tuple[tuple[str, ...], ...]
    kind: str
    fix_line: int
    fix_code: str  # the FIX line without its comment, stripped
    fix_function: str  # the innermost def around the FIX line, or "<module>"
    forward_op: str | None = None
    write_op: str | None = None
    eager_alert_origin: str | None = None
    deliberate: str | None = None
    device: str | None = None
    fix_at_op: bool = False
    fix_op: str | None = None
    absent: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return self.path.stem


def zoo_programs() -> list[ZooProgram]:
    return [parse_program(p) for p in sorted(ZOO.glob("*.py"))]


def parse_program(path: Path) -> ZooProgram:
    """Read the EXPECT header and the `# FIX` line; refuse a malformed program loudly."""
    text = path.read_text(encoding="utf-8")
    expect: dict[str, str] = {}
    fix_lines: list[int] = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type != tokenize.COMMENT:
            continue
        body = tok.string[1:].strip()
        if body.startswith("EXPECT "):
            key, sep, value = body[len("EXPECT "):].partition(":")
            key = key.strip()
            if not sep or key not in _KEYS or key in expect:
                raise ValueError(f"{path.name}:{tok.start[0]}: bad EXPECT line {tok.string!r}")
            expect[key] = value.strip()
        elif body == "FIX":
            fix_lines.append(tok.start[0])
    if len(fix_lines) != 1:
        raise ValueError(f"{path.name}: {len(fix_lines)} '# FIX' lines, want exactly one")
    missing = {"origin_op", "cause", "kind"} - expect.keys()
    if missing:
        raise ValueError(f"{path.name}: EXPECT header lacks {sorted(missing)}")
    kind = expect["kind"]
    if kind not in KINDS:
        raise ValueError(f"{path.name}: kind {kind!r} not one of {KINDS}")
    if (kind == "gradient") != ("forward_op" in expect):
        raise ValueError(f"{path.name}: forward_op goes with kind gradient, and only with it")
    if expect.get("fix_at", "op") != "op" or ("fix_at" in expect and kind != "gradient"):
        raise ValueError(f"{path.name}: fix_at must be 'op', and only for kind gradient")
    if (kind == "variable") != ("write_op" in expect):
        raise ValueError(f"{path.name}: write_op goes with kind variable, and only with it")
    line = fix_lines[0]
    source_line = text.splitlines()[line - 1]
    code = source_line[: source_line.rindex("# FIX")].strip()
    return ZooProgram(
        path=path,
        origin_ops=tuple(s.strip() for s in expect["origin_op"].split("|")),
        causes=tuple(tuple(norm(a).strip() for a in term.split("|"))
                     for term in expect["cause"].split(",")),
        kind=kind,
        fix_line=line,
        fix_code=code,
        fix_function=_enclosing_function(text, line),
        forward_op=expect.get("forward_op"),
        write_op=expect.get("write_op"),
        eager_alert_origin=expect.get("eager_alert_origin"),
        deliberate=expect.get("deliberate"),
        device=expect.get("device"),
        fix_at_op=expect.get("fix_at") == "op",
        fix_op=expect.get("fix_op"),
        absent=tuple(norm(a).strip() for a in expect.get("absent", "").split("|") if a.strip()),
    )


def _enclosing_function(text: str, line: int) -> str:
    name = "<module>"
    best = -1
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            end = node.end_lineno or node.lineno
            if node.lineno <= line <= end and node.lineno > best:
                name, best = node.name, node.lineno
    return name


def norm(s: str) -> str:
    return s.lower().replace("\u2212", "-").replace("\u221e", "inf")


_NEGATIONS = {"0", "no", "not", "without", "never"}


def affirms(text: str, word: str) -> bool:
    """`word` occurs in `text` at least once not right after a negation ("holds 0 zeros",
    "no zero" do not say that there are zeros)."""
    start = text.find(word)
    while start >= 0:
        before = text[:start].split()
        if not before or before[-1] not in _NEGATIONS:
            return True
        start = text.find(word, start + 1)
    return False


def headline_alert(report: dict[str, Any]) -> dict[str, Any] | None:
    """The alert the user is sent to first: the first of `first_alerts`."""
    alerts = report.get("first_alerts") or []
    return alerts[0] if alerts else None


def same_file(recorded: object, program: Path) -> bool:
    return isinstance(recorded, str) and os.path.realpath(recorded) == os.path.realpath(program)


def _frame_problems(what: str, frame: object, prog: ZooProgram) -> list[str]:
    if not isinstance(frame, dict):
        return [f"{what} missing"]
    out = []
    if not same_file(frame.get("file"), prog.path):
        out.append(f"{what}.file is {frame.get('file')!r}, not the program")
    if frame.get("line") != prog.fix_line:
        out.append(f"{what}.line is {frame.get('line')}, want FIX line {prog.fix_line}")
    return out


def problems(prog: ZooProgram, report: dict[str, Any]) -> list[str]:
    """Everything in the report that differs from the program's expectation (empty = pass)."""
    alert = headline_alert(report)
    if alert is None:
        return ["no alert in first_alerts"]
    diag = alert.get("diagnosis") or {}
    origin = diag.get("origin") or {}
    out: list[str] = []
    op = origin.get("op_type")
    if not any(isinstance(op, str) and fnmatchcase(op, p) for p in prog.origin_ops):
        out.append(f"origin.op_type is {op!r}, want {'|'.join(prog.origin_ops)}")
    fix = origin.get("fix_frame")
    out += _frame_problems("origin.fix_frame", fix, prog)
    if isinstance(fix, dict):
        if fix.get("function") != prog.fix_function:
            out.append(f"origin.fix_frame.function is {fix.get('function')!r}, "
                       f"want {prog.fix_function!r}")
        code = str(fix.get("code") or "")
        if "#" in code:
            code = code[: code.index("#")]
        if code.strip() != prog.fix_code:
            out.append(f"origin.fix_frame.code is {fix.get('code')!r}, want {prog.fix_code!r}")
    explanation = norm(str(diag.get("explanation") or ""))
    for term in prog.causes:
        if not any(affirms(explanation, a) for a in term):
            out.append(f"explanation lacks {'|'.join(term)!r}: {diag.get('explanation')!r}")
    out += [f"explanation says {a!r}: {diag.get('explanation')!r}" for a in prog.absent
            if a in explanation]
    if origin.get("cause") != prog.kind:
        out.append(f"origin.cause is {origin.get('cause')!r}, want {prog.kind!r}")
    if prog.fix_op:
        source = origin.get("source")
        if not isinstance(source, dict) or source.get("op_type") != prog.fix_op:
            out.append(f"origin.source is {source!r}, want the {prog.fix_op} to fix")
        else:
            out += _frame_problems("origin.source.user_frame", source.get("user_frame"), prog)
    elif prog.kind == "forward" or prog.fix_at_op:
        out += _frame_problems("origin.user_frame", origin.get("user_frame"), prog)
    elif prog.kind == "gradient":
        fwd = origin.get("forward")
        if not isinstance(fwd, dict):
            out.append("origin.forward missing")
        else:
            fop = fwd.get("op_type")
            if not (isinstance(fop, str) and prog.forward_op and fnmatchcase(fop, prog.forward_op)):
                out.append(f"origin.forward.op_type is {fop!r}, want {prog.forward_op}")
            if fwd.get("kind") not in ("graph", "eager"):
                out.append(f"origin.forward.kind is {fwd.get('kind')!r}")
            elif fwd.get("kind") == "graph" and not fwd.get("op_name"):
                out.append("origin.forward.op_name missing for a graph op")
            if "graph" not in fwd:  # null for an eager op and for TF1's unnamed graph
                out.append("origin.forward.graph missing")
            if not prog.fix_at_op:
                out += _frame_problems("origin.forward.user_frame", fwd.get("user_frame"),
                                       prog)
    elif prog.kind == "variable":
        write = origin.get("write")
        if not isinstance(write, dict):
            out.append("origin.write missing")
        else:
            if write.get("op_type") != prog.write_op:
                out.append(f"origin.write.op_type is {write.get('op_type')!r}, "
                           f"want {prog.write_op}")
            out += _frame_problems("origin.write.user_frame", write.get("user_frame"), prog)
    if prog.eager_alert_origin:
        out += _eager_alert_problems(prog, report)
    if prog.deliberate:
        out += _deliberate_problems(prog, report)
    if prog.device and not str(origin.get("device") or "").endswith(prog.device):
        out.append(f"origin.device is {origin.get('device')!r}, want …{prog.device}")
    return out


def _eager_alert_problems(prog: ZooProgram, report: dict[str, Any]) -> list[str]:
    eager = [a for a in report.get("first_alerts") or [] if a.get("kind") == "eager"]
    if not eager:
        return ["no eager alert among first_alerts (the function call's output)"]
    origin = (eager[0].get("diagnosis") or {}).get("origin") or {}
    out = []
    if origin.get("op_type") != prog.eager_alert_origin:
        out.append(f"eager alert {eager[0].get('op_type')!r}: origin.op_type is "
                   f"{origin.get('op_type')!r}, want {prog.eager_alert_origin!r} inside it")
    out += [f"eager alert: {p}" for p in
            _frame_problems("origin.fix_frame", origin.get("fix_frame"), prog)]
    return out


def _deliberate_problems(prog: ZooProgram, report: dict[str, Any]) -> list[str]:
    alerts = report.get("first_alerts") or []
    if not alerts:
        return ["no alerts"]
    out = []
    if alerts[0].get("op_type") != prog.deliberate:
        out.append(f"first alert is {alerts[0].get('op_type')!r}, want the deliberate "
                   f"{prog.deliberate} (it stays listed)")
    source = ((alerts[0].get("diagnosis") or {}).get("origin") or {}).get("source")
    if not isinstance(source, dict) or source.get("op_type") != prog.deliberate:
        out.append(f"origin.source is {source!r}, want the deliberate {prog.deliberate}")
    return out


def summary(report: dict[str, Any]) -> str:
    """What the report says today about its headline alert, in one line (for messages)."""
    alert = headline_alert(report)
    if alert is None:
        return "no alert"
    diag = alert.get("diagnosis") or {}
    origin = diag.get("origin") or {}
    uf = origin.get("user_frame") or {}
    return (f"origin {origin.get('op_type')} {origin.get('op_name')!r} "
            f"({origin.get('kind')}, graph {origin.get('graph_name')!r}) at "
            f"{os.path.basename(str(uf.get('file')))}:{uf.get('line')} "
            f"in {uf.get('function')}; explanation: {diag.get('explanation')!r}")


@dataclass
class ZooRun:
    """One zoo program's run and its report."""

    program: Path
    logdir: Path
    returncode: int
    output: str  # tail of the program's stdout + stderr
    seconds: float
    report_returncode: int
    report: dict[str, Any] | None
    report_error: str


def record_program(program: Path, logdir: Path) -> tuple[int, str, float]:
    """Run a zoo program into `logdir` (its own process, TensorFlow imported already):
    its exit status, the tail of its output, its seconds."""
    start = time.monotonic()
    status, output = run_tf([program, logdir])
    return status, output[-3000:], time.monotonic() - start


def report_on(program: Path, logdir: Path, recording: tuple[int, str, float]) -> ZooRun:
    """`tfdbg-tui report --json` on a zoo program's logdir, as a user runs it (the command's
    entry point, in this process: support.report_run)."""
    status, output, seconds = recording
    rep = report_json(str(logdir))
    return ZooRun(program, logdir, status, output, seconds, rep.status, rep.report, rep.error)
