"""A TensorFlow-free reader of tfdbg2 logdirs (what `enable_dump_debug_info` writes).

Imports neither TensorFlow, Textual nor Rich: it is the UI-free core that the app, the report
and the dumper's tests stand on. Start with `open_logdir(path)`; see `reader.index.logdir`.
"""

from reader.errors import CorruptRecordError, LogdirError, ReaderError
from reader.index.logdir import Alerts, DebugLogdir, UpdateStats, open_logdir
from reader.index.schema import EAGER, GRAPH

__all__ = [
    "EAGER",
    "GRAPH",
    "Alerts",
    "CorruptRecordError",
    "DebugLogdir",
    "LogdirError",
    "ReaderError",
    "UpdateStats",
    "open_logdir",
]
