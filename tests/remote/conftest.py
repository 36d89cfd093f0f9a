"""The S3 server of the remote-logdir tests (tests/support/s3.py), once per session.

The test process itself talks to it as a user's shell would: the `AWS_*` variables point
botocore at it, and no profile or credentials file of the machine is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from support.s3 import S3Server, start


@pytest.fixture(scope="session")
def s3(tmp_path_factory: pytest.TempPathFactory) -> Iterator[S3Server]:
    home = tmp_path_factory.mktemp("s3")
    for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN"):
        os.environ.pop(name, None)
    os.environ["AWS_CONFIG_FILE"] = str(home / "no-config")
    os.environ["AWS_SHARED_CREDENTIALS_FILE"] = str(home / "no-credentials")
    for server in start(home):
        os.environ.update(server.settings())
        yield server
