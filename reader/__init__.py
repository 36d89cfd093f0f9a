"""A TensorFlow-free reader of tfdbg2 logdirs (what `enable_dump_debug_info` writes).

Imports neither TensorFlow, Textual nor Rich: it is the UI-free core that the app, the report
and the dumper's tests stand on.
"""
