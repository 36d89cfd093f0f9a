"""A real S3-compatible server for the remote-logdir tests: moto's stand-alone server.

It runs as its own process on 127.0.0.1 and speaks S3's HTTP API; our code reaches it as it
would reach a bucket (through fsspec/s3fs and botocore), pointed there by `AWS_ENDPOINT_URL`.
IAM authentication is on (`INITIAL_NO_AUTH_ACTION_COUNT`): the first three requests create a
user, its policy and its access key, and every later request must be signed with that key,
so a wrong secret is refused as a real bucket refuses it.

`S3Server.recording()` lists the requests the server received meanwhile (moto's request
recorder, switched on only for that block): what our reader asks a bucket for, observed at
the server (how many GETs, which ranges), not counted inside our own code.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.slowdown import guard

REGION = "us-east-1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_listening(port: int, proc: subprocess.Popen[bytes], timeout: float = guard(60)
                    ) -> None:
    """Until the server accepts connections (a connection attempt per 50 ms)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"moto server exited with status {proc.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("moto server did not start listening")


@dataclass
class S3Server:
    endpoint: str
    key: str
    secret: str

    def env(self, **extra: str) -> dict[str, str]:
        """The environment a user would have set for this bucket (for child processes)."""
        env = dict(os.environ)
        env.update(self.settings())
        env.update(extra)
        return env

    def settings(self) -> dict[str, str]:
        return {"AWS_ENDPOINT_URL": self.endpoint, "AWS_ACCESS_KEY_ID": self.key,
                "AWS_SECRET_ACCESS_KEY": self.secret, "AWS_DEFAULT_REGION": REGION}

    def fs(self) -> Any:
        """An s3fs client of the tests' own (to put objects), not the one under test."""
        import s3fs

        return s3fs.S3FileSystem(key=self.key, secret=self.secret, skip_instance_cache=True,
                                 use_listings_cache=False,
                                 endpoint_url=self.endpoint)

    def _recorder(self, action: str) -> bytes:
        with urllib.request.urlopen(f"{self.endpoint}/moto-api/recorder/{action}",
                                    timeout=guard(60)) as resp:
            return bytes(resp.read())

    @contextmanager
    def recording(self) -> Iterator[list[dict[str, Any]]]:
        """The requests received during the block (method, path, range), given in the
        list yielded, filled when the block ends."""
        got: list[dict[str, Any]] = []
        self._recorder("reset-recording")
        self._recorder("start-recording")
        try:
            yield got
        finally:
            self._recorder("stop-recording")
            for line in self._recorder("download-recording").decode().splitlines():
                entry = json.loads(line)
                headers = {k.lower(): v for k, v in entry["headers"].items()}
                got.append({"method": entry["method"], "path": entry["url"].split("?")[0],
                            "query": entry["url"].partition("?")[2],
                            "range": headers.get("range", ""),
                            "if_match": headers.get("if-match", "")})

    def upload(self, local: str | Path, url: str) -> str:
        """Copy every file of the folder `local` to `url` (s3://bucket/prefix); returns url."""
        fs = self.fs()
        bucket = url[len("s3://"):].split("/", 1)[0]
        if not fs.exists(bucket):
            fs.mkdir(bucket)
        for f in sorted(Path(local).iterdir()):
            if f.is_file():
                fs.pipe(f"{url[len('s3://'):]}/{f.name}", f.read_bytes())
        return url


def start(home: Path) -> Iterator[S3Server]:
    """Start the server, make a user with full access and its key; stop it afterwards."""
    port = _free_port()
    env = dict(os.environ, INITIAL_NO_AUTH_ACTION_COUNT="3", MOTO_PORT=str(port),
               MOTO_RECORDER_FILEPATH=str(home / "moto-requests.jsonl"))
    log = open(home / "moto.log", "wb")  # closed below
    proc = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p",
                             str(port)], env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        _wait_listening(port, proc)
        endpoint = f"http://127.0.0.1:{port}"
        import boto3

        iam = boto3.client("iam", endpoint_url=endpoint, region_name=REGION,
                           aws_access_key_id="setup", aws_secret_access_key="setup")
        iam.create_user(UserName="tfdbg")
        iam.put_user_policy(UserName="tfdbg", PolicyName="all", PolicyDocument=json.dumps(
            {"Version": "2012-10-17",
             "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
        key = iam.create_access_key(UserName="tfdbg")["AccessKey"]
        yield S3Server(endpoint, key["AccessKeyId"], key["SecretAccessKey"])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
