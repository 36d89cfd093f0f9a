"""The S3 server of the remote-logdir tests (tests/support/s3.py), once per session, and the
GCS emulator (tests/support/gcs.py), once per module that asks for it.

The test process itself talks to them as a user's shell would: the `AWS_*` variables point
botocore at S3, `STORAGE_EMULATOR_HOST` gcsfs at the emulator (for the module's duration), and
no profile or credentials file of the machine is read.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from support.gcs import GCSServer
from support.gcs import start as start_gcs
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


@pytest.fixture(scope="module")
def gcs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[GCSServer]:
    pytest.importorskip("gcsfs")
    pytest.importorskip("gcp_storage_emulator")

    home = tmp_path_factory.mktemp("gcs")
    for server in start_gcs(home):
        with pytest.MonkeyPatch.context() as mp:
            for name, value in server.settings().items():
                mp.setenv(name, value)
            mp.delenv("GOOGLE_APPLICATION_CREDENTIALS", raising=False)
            mp.delenv("TFDBG_TUI_SHARDS", raising=False)
            yield server
