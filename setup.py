"""The optional compiled core of the reader; everything else is configured in pyproject.toml.

`optional=True`: without a C compiler the install still succeeds and the reader runs its
pure-Python loops (same results, slower).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "reader._native._ingest",
            ["reader/_native/_ingest.c", "reader/_native/readback.c", "reader/_native/wire.c"],
            depends=["reader/_native/wire.h"],
            optional=True,
        )
    ]
)
