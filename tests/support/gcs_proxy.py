"""`support.s3_proxy`'s misbehaving server, in front of the tests' GCS emulator
(`support.gcs`): the same modes (`short`, `short-held`, `cut`, `stall`, …), applied to GCS's
media downloads (`GET /download/storage/v1/b/BUCKET/o/NAME?alt=media`, the JSON API's way of
reading an object's bytes, ranged or whole). Listings and uploads are forwarded unchanged.
The reader reaches it as it reaches the emulator: `STORAGE_EMULATOR_HOST` names it.
"""

from __future__ import annotations

from urllib.parse import unquote, urlsplit

from support.gcs import GCSServer
from support.s3_proxy import Proxy


class GCSProxy(Proxy):
    def __init__(self, gcs: GCSServer, mode: str = "forward",
                 only: str | tuple[str, ...] = "") -> None:
        super().__init__(gcs, mode, only)

    def is_object(self, method: str, path: str) -> bool:
        """A media download of an object `only` names."""
        parts = urlsplit(path)
        prefix = "/download/storage/v1/b/"
        return (method == "GET" and parts.path.startswith(prefix) and "/o/" in parts.path
                and unquote(parts.path.split("/o/", 1)[1]).endswith(self.only))
