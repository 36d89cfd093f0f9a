"""`gcp-storage-emulator`, run with its multipart uploads kept byte for byte (tests/support/gcs.py
starts it as `python -m support.gcs_emulator start …`, the emulator's own command line).

Why: the emulator parses a `multipart/related` upload (gcsfs's `pipe` of anything under its
chunk size, and `tfdbg-tui index`'s shards) with Python's email parser, which takes the line
break before each boundary as the boundary's own and strips one: `\\r\\n`, `\\r` or `\\n`.
gcsfs separates its parts with a bare `\\n`, so an object whose last byte is `\\r` (a record's
CRC byte, 1 in 256) was stored one byte short (`\\r` + gcsfs's `\\n` read as one `\\r\\n`) and
a `gs://` report warned of an incomplete record its local copy does not have — only in runs
whose freshly written reference logdir happened to end a file in 0x0D. Real GCS stores every
byte. Here the parts are split on the line break the body itself uses after its first
boundary, and the content is everything between its headers and the closing boundary.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from gcp_storage_emulator import server
from gcp_storage_emulator.__main__ import main

_read_data = server._read_data


def _header_value(headers: dict[str, str], name: str, default: str) -> str:
    return headers.get(name, default).split(";", 1)[0].strip().lower()


def split_related(body: bytes, boundary: bytes) -> tuple[dict[str, str], bytes,
                                                         dict[str, str], bytes] | None:
    """(headers, bytes) of the two parts of a `multipart/related` upload body, exactly as
    sent; None when the body is not that (left to the emulator's own parser)."""
    dash = b"--" + boundary
    if not body.startswith(dash):
        return None
    eol = b"\r\n" if body[len(dash):].startswith(b"\r\n") else b"\n"
    start = len(dash) + len(eol)
    end = body.rfind(eol + dash + b"--")
    if end < start:
        return None
    first, sep, second = body[start:end].partition(eol + dash + eol)
    if not sep:
        return None
    parts = []
    for part in (first, second):
        head, blank, content = part.partition(eol + eol)
        if not blank:
            return None
        headers = {}
        for line in head.split(eol):
            name, colon, value = line.decode("latin-1").partition(":")
            if colon:
                headers[name.strip().lower()] = value.strip()
        parts.append((headers, content))
    return parts[0][0], parts[0][1], parts[1][0], parts[1][1]


def _exact_read_data(handler: Any, query: dict[str, list[str]]) -> Any:
    content_type = handler.headers.get("Content-Type") or ""
    if not content_type.lower().startswith("multipart/related"):
        return _read_data(handler, query)
    raw = server._decode_raw_data(server._read_raw_data(handler), handler)
    if not raw:
        return None
    boundary = ""
    for param in content_type.split(";")[1:]:
        key, _, value = param.strip().partition("=")
        if key.lower() == "boundary":
            boundary = value.strip().strip('"')
    parts = split_related(raw, boundary.encode("latin-1")) if boundary else None
    if parts is None or any(_header_value(h, "content-transfer-encoding", "binary")
                            not in ("binary", "7bit", "8bit") for h in (parts[0], parts[2])):
        return _email_parse(raw, content_type)  # what the emulator does itself
    return {"meta": json.loads(parts[1]), "content": parts[3],
            "content-type": _header_value(parts[2], "content-type", "text/plain")}


def _email_parse(raw: bytes, content_type: str) -> dict[str, Any]:
    """The emulator's own reading of a multipart/related body (server._read_data)."""
    from email.parser import BytesParser

    msg = BytesParser().parsebytes(f"Content-Type:{content_type}\r\n".encode() + raw)
    payload: Any = msg.get_payload()
    return {"meta": json.loads(payload[0].get_payload()),
            "content": payload[1].get_payload(decode=True),
            "content-type": payload[1].get_content_type()}


server._read_data = _exact_read_data

if __name__ == "__main__":
    main(sys.argv[1:])
