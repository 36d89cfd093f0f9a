"""A real GCS-compatible server for the `gs://` tests: `gcp-storage-emulator` (pip), run as
its own process on 127.0.0.1, speaking GCS's JSON API (listings with generations and MD5
ETags, ranged media downloads, simple, multipart and resumable uploads). It runs through
support/gcs_emulator.py, which keeps a multipart upload's bytes exactly as sent (the
emulator's own parser dropped an object's last byte when it was `\r`).

Our code reaches it as any GCS client reaches an emulator: `STORAGE_EMULATOR_HOST` names it
(`reader.io.remote` then uses gcsfs's JSON-API filesystem and no credentials, as Google's
own client does for an emulator). The server logs each request line; `GCSServer.requests()`
reads them back: what our reader asked the server for, observed at the server.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.slowdown import guard

_REQUEST = re.compile(r'"(GET|POST|PUT|DELETE|PATCH|HEAD) (\S+) HTTP/[0-9.]+" (\d+)')


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class GCSServer:
    host: str  # http://127.0.0.1:PORT
    log: Path

    @property
    def endpoint(self) -> str:  # (where `support.gcs_proxy` forwards to)
        return self.host

    def settings(self) -> dict[str, str]:
        return {"STORAGE_EMULATOR_HOST": self.host}

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a user would have set for this server (for child processes)."""
        return {**os.environ, **self.settings(), **extra}

    def fs(self) -> Any:
        """A gcsfs client of the tests' own (to put objects), not the one under test."""
        from gcsfs.core import GCSFileSystem

        return GCSFileSystem(token="anon", project="test", endpoint_url=self.host,
                             skip_instance_cache=True, use_listings_cache=False)

    def upload(self, local: str | Path, url: str) -> str:
        """Copy every file of the folder `local` to `url` (gs://bucket/prefix); returns url."""
        fs = self.fs()
        bucket = url[len("gs://"):].split("/", 1)[0]
        if not fs.exists(bucket):
            fs.mkdir(bucket)
        for f in sorted(Path(local).iterdir()):
            if f.is_file():
                fs.pipe(f"{url[len('gs://'):]}/{f.name}", f.read_bytes())
        return url

    def mark(self) -> int:
        """Where the request log ends now (give it to `requests`)."""
        return self.log.stat().st_size

    def requests(self, since: int = 0) -> list[tuple[str, str, int]]:
        """(method, decoded path, status) of each request the server logged after `since`;
        media downloads are `GET /download/storage/v1/b/BUCKET/o/NAME`."""
        with open(self.log, "rb") as f:
            f.seek(since)
            text = f.read().decode("utf-8", "replace")
        return [(m[1], urllib.parse.unquote(m[2].split("?")[0]), int(m[3]))
                for m in _REQUEST.finditer(text)]


def _wait_listening(port: int, proc: subprocess.Popen[bytes]) -> None:
    """Until the server accepts connections (a connection attempt per 50 ms)."""
    deadline = time.monotonic() + guard(60)
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"GCS emulator exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("GCS emulator did not start listening")


def start(home: Path) -> Iterator[GCSServer]:
    """Start the emulator (objects in memory); stop it afterwards."""
    port = _free_port()
    log_path = home / "gcs.log"
    log = open(log_path, "wb")  # closed below
    # the emulator with its multipart uploads kept byte for byte (support/gcs_emulator.py)
    proc = subprocess.Popen([sys.executable, "-m", "support.gcs_emulator", "start", "--host",
                             "127.0.0.1", "--port", str(port), "--in-memory"],
                            stdout=log, stderr=subprocess.STDOUT, cwd=Path(__file__).parents[1])
    try:
        _wait_listening(port, proc)
        yield GCSServer(f"http://127.0.0.1:{port}", log_path)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
