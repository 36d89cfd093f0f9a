"""The optional compiled core of the reader; everything else is configured in pyproject.toml.

`optional=True`: without a C compiler the install still succeeds and the reader runs its
pure-Python loops (same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "reader._native._ingest",
            [f"reader/_native/{name}.c" for name in (
                "_ingest", "scan_traces", "scan_executions", "keytable", "readback", "wire")],
            depends=[f"reader/_native/{name}.h" for name in ("wire", "keytable", "scan")],
            optional=True,
        )
    ]
)
