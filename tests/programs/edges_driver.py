"""Run several edge-case scenario programs (tests/programs/edges/) in one Python process.

    python edges_driver.py OUT_ROOT STATUS_JSON PROGRAM.py [PROGRAM.py …]

Each scenario is an ordinary script (`python PROGRAM.py LOGDIR` works on its own) that
enables tfdbg dumping into its LOGDIR, goes NaN, and disables dumping. Starting TensorFlow
costs seconds on a loaded two-core machine, so the scenarios share one process: each runs
as `__main__` with its own argv into OUT_ROOT/<stem>; dumping is disabled after each (even
when one fails), so no scenario's records reach another's logdir. STATUS_JSON gets, per
scenario, its exit status and the tail of its output.

Two scenarios must not define the same function body: AutoGraph caches converted functions
by code object, and code objects compare equal across files (the file name is not part of
the comparison), so the second would be recorded with the first one's source lines.
"""

from __future__ import annotations

import contextlib
import io
import json
import runpy
import sys
import traceback
from pathlib import Path

import tensorflow as tf


def run_one(program: Path, logdir: Path) -> dict[str, object]:
    out = io.StringIO()
    code = 0
    saved = sys.argv
    sys.argv = [str(program), str(logdir)]
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            runpy.run_path(str(program), run_name="__main__")
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except Exception:  # one scenario's failure is reported, the others still run
        code = 1
        out.write(traceback.format_exc())
    finally:
        sys.argv = saved
        tf.debugging.experimental.disable_dump_debug_info()
    return {"returncode": code, "output": out.getvalue()[-3000:]}


def main() -> None:
    root, status = Path(sys.argv[1]), Path(sys.argv[2])
    tf.get_logger().setLevel("ERROR")
    results = {}
    for p in map(Path, sys.argv[3:]):
        results[p.stem] = run_one(p, root / p.stem)
    status.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
