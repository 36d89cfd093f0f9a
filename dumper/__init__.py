"""Record TensorFlow programs into tfdbg2 logdirs, with nothing lost.

- `enable(logdir)` / `disable()` / `with dumping(logdir):` turn TensorFlow's own dumping on
  with NaN-hunting defaults (FULL_HEALTH, no circular buffer), periodic flushes and a clean
  close on exit, exception, Ctrl-C and SIGTERM (`dumper.core`).
- `LogdirWriter` writes the same format without TensorFlow (`dumper.writer`).
- `examples/nan_mlp.py` is the reference NaN case.

Importing this package never imports TensorFlow (only `enable` does) nor Textual.
"""

from dumper.core import Dump, current, disable, dumping, enable
from dumper.errors import DumperError, StoppedAtNaN
from dumper.tensors import MODES, health_vector
from dumper.writer import LogdirWriter

__all__ = [
    "MODES",
    "Dump",
    "DumperError",
    "LogdirWriter",
    "StoppedAtNaN",
    "current",
    "disable",
    "dumping",
    "enable",
    "health_vector",
]
