"""A TensorFlow-free reader of tfdbg2 logdirs (what `enable_dump_debug_info` writes).

Imports neither TensorFlow, Textual nor Rich: it is the UI-free core that the app, the report
and the dumper's tests stand on. Start with `open_logdir(path)`; see `reader.index.logdir`.
Layers: `reader.io` reads files, `reader.index` indexes them and answers typed queries,
`reader.values` and `reader.diagnosis` work on top of the index.
"""

from reader.cache.snapshot import LogdirCache
from reader.errors import CorruptRecordError, LogdirError, ReaderError
from reader.index.alerts import Alerts
from reader.index.hooks import install
from reader.index.logdir import DebugLogdir, UpdateStats, open_logdir
from reader.index.schema import EAGER, GRAPH, ExecutionRow, HealthRow, TraceRow
from reader.index.sharding import read_sharded
from reader.io.remote_listing import one_pass

# the index cache and the sharded first read build on the index: it calls them through
# these slots rather than importing them (see reader.index.hooks)
install(LogdirCache, read_sharded)

__all__ = [
    "EAGER",
    "GRAPH",
    "Alerts",
    "CorruptRecordError",
    "DebugLogdir",
    "ExecutionRow",
    "HealthRow",
    "LogdirError",
    "ReaderError",
    "TraceRow",
    "UpdateStats",
    "one_pass",
    "open_logdir",
]
