"""A misbehaving HTTP server in front of the tests' S3 server (`support.s3`).

What the reader meets on a bad network or from a hostile server, made on purpose: requests
are forwarded to moto unchanged (the `Host` header too, so the client's signature holds), and
the answers to GETs of objects are changed as `mode` says:

- `forward`: nothing changed;
- `ignore-if-match`: a GET refused because the object is another version now (412) is
  answered with the current version's bytes and ETag, as a server or proxy that ignores
  `If-Match` would;
- `ignore-if-match-no-etag`: the same, and no answer to a GET of an object carries an ETag
  (a proxy that strips it);
- `stall`: the headers and half the body, then nothing more (the connection stays open);
- `trickle`: the headers, then the body one byte every 50 ms;
- `silent`: no request of any kind is ever answered (connections are accepted);
- `huge-listing`: a listing claims 1 TiB for each object (the objects are what they are);
- `error`: every GET of an object is answered 500 (Internal Server Error);
- `endless-listing`: a listing always says there is more (a new continuation token each
  time), its next pages answered here with the first page's objects again;
- `corrupt`: every byte of an object's answer changed (same length, same ETag), as a disk
  or a proxy corrupting it would (botocore finds its checksum does not match);
- `short`: an object's answer claims (Content-Length) 1,000 bytes more than it sends, then
  the connection closes, as a server dying mid-answer or a proxy cutting it does;
- `short-held`: the same, but the connection stays open after the bytes sent (a client
  reading only as far as it asked never sees the close: a slow close, deterministically);
- `cut`: an object's answer claims its true length and sends all but its last 1,000
  bytes, then the connection closes;
- `ignore-range`: a GET of an object is forwarded without its `Range`: the answer is the
  whole object (200, no Content-Range), whatever range was asked for;
- `broken-listing`: a listing's XML is cut in the middle of an element (a server or proxy
  failing mid-answer with a Content-Length that says so); `garbage-listing`: a listing is
  answered with an HTML page (a captive portal, a misconfigured proxy), status 200.

With `only` (a suffix, or a tuple of them), the objects misbehaved on are those whose key
ends with it (the others are forwarded as they are).

What is an object's GET is S3's here (`is_object`); `support.gcs_proxy` says it for GCS's
JSON API, the rest being the same.

`close()` ends every connection it holds.
"""

from __future__ import annotations

import http.client
import re
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Protocol
from urllib.parse import urlsplit

from support.s3 import S3Server

_HOP = {"connection", "keep-alive", "transfer-encoding", "content-length"}


class Upstream(Protocol):
    """The server a proxy forwards to (`S3Server`; `support.gcs.GCSServer` too)."""

    @property
    def endpoint(self) -> str: ...


class _QuietServer(ThreadingHTTPServer):
    """A client that hangs up mid-body (the commands under test give up on purpose: timeouts,
    a stale object) is expected here, not a failure to print as a traceback in the suite's log."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class Proxy:
    def __init__(self, s3: S3Server | Upstream, mode: str = "forward",
                 only: str | tuple[str, ...] = "") -> None:
        self.s3, self.mode, self.only = s3, mode, only
        self.page, self.pages = b"", 0  # (endless-listing)
        self.stop = threading.Event()
        up = urlsplit(s3.endpoint)
        self.upstream = (up.hostname or "127.0.0.1", up.port or 80)
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                owner.handle(self, "GET")

            def do_HEAD(self) -> None:
                owner.handle(self, "HEAD")

            def do_PUT(self) -> None:
                owner.handle(self, "PUT")

            def do_POST(self) -> None:
                owner.handle(self, "POST")

        self.server = _QuietServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()

    def close(self) -> None:
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()

    def handle(self, h: BaseHTTPRequestHandler, method: str) -> None:
        if self.mode == "silent":
            self.stop.wait()
            h.close_connection = True
            return
        length = int(h.headers.get("Content-Length") or 0)
        body = h.rfile.read(length) if length else None
        if self.mode == "endless-listing" and "continuation-token" in h.path and self.page:
            self.pages += 1
            data = self.page.replace(b"<NextContinuationToken>0<",
                                     b"<NextContinuationToken>%d<" % self.pages)
            h.send_response(200)
            h.send_header("Content-Type", "application/xml")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
            return
        conn = http.client.HTTPConnection(*self.upstream, timeout=120)
        conn.putrequest(method, h.path, skip_host=True, skip_accept_encoding=True)
        is_object = self.is_object(method, h.path)
        for k, v in h.headers.items():
            if not (is_object and self.mode == "ignore-range" and k.lower() == "range"):
                conn.putheader(k, v)
        conn.endheaders(body)
        resp = conn.getresponse()
        data = resp.read()
        status = resp.status
        headers = [(k, v) for k, v in resp.getheaders() if k.lower() not in _HOP]
        conn.close()
        query = urlsplit(h.path).query
        if self.mode == "endless-listing" and method == "GET" and "list-type" in query:
            data = self.page = data.replace(
                b"<IsTruncated>false</IsTruncated>",
                b"<IsTruncated>true</IsTruncated><NextContinuationToken>0</NextContinuationToken>")
        if self.mode == "huge-listing" and method == "GET" and "list-type" in query:
            data = re.sub(rb"<Key>([^<]*)</Key>(.*?)<Size>\d+</Size>", self._tib, data,
                          flags=re.S)
        if self.mode == "broken-listing" and method == "GET" and "list-type" in query:
            data = data[: data.find(b"<Size>") + 8]  # cut inside the first object's size
        if self.mode == "garbage-listing" and method == "GET" and "list-type" in query:
            data = b"<html><body><h1>Welcome</h1><p>Sign in to continue</p></body></html>"
            headers = [(k, v) for k, v in headers if k.lower() != "content-type"]
            headers.append(("Content-Type", "text/html"))
        if (is_object and self.mode.startswith("ignore-if-match") and status == 412):
            status, headers, data = self._current(h)
        if is_object and self.mode == "ignore-if-match-no-etag":
            headers = [(k, v) for k, v in headers if k.lower() != "etag"]
        if is_object and status < 300 and self.mode == "corrupt":
            data = bytes(b ^ 0x5A for b in data)
        if is_object and self.mode == "error":
            status, headers, data = 500, [], b"<Error><Code>InternalError</Code></Error>"
        h.send_response(status)
        for k, v in headers:
            h.send_header(k, v)
        short = is_object and status < 300 and self.mode in ("short", "short-held")
        h.send_header("Content-Length", str(len(data) + 1000 * short))
        h.end_headers()
        if method == "HEAD":
            return
        if short or (is_object and status < 300 and self.mode == "cut"):
            h.wfile.write(data if short else data[:-1000])
            h.wfile.flush()
            if self.mode == "short-held":
                self.stop.wait()
            h.close_connection = True
            return
        if is_object and status < 300 and self.mode == "stall":
            h.wfile.write(data[: len(data) // 2])
            h.wfile.flush()
            self.stop.wait()
            h.close_connection = True
            return
        if is_object and status < 300 and self.mode == "trickle":
            for i in range(len(data)):
                if self.stop.wait(0.05):
                    break
                h.wfile.write(data[i: i + 1])
                h.wfile.flush()
            h.close_connection = True
            return
        h.wfile.write(data)

    def is_object(self, method: str, path: str) -> bool:
        """Is this request a GET of an object's bytes (one `only` names)? S3's form:
        `/bucket/key`, not a listing."""
        query = urlsplit(path).query
        key = urlsplit(path).path.strip("/")
        return (method == "GET" and "list-type" not in query and "location" not in query
                and key.count("/") >= 1 and key.endswith(self.only))

    def _tib(self, m: re.Match[bytes]) -> bytes:
        if not m.group(1).decode().endswith(self.only):
            return m.group(0)
        return b"<Key>%s</Key>%s<Size>%d</Size>" % (m.group(1), m.group(2), 1 << 40)

    def _current(self, h: BaseHTTPRequestHandler) -> tuple[int, list[tuple[str, str]], bytes]:
        """What a server ignoring If-Match answers: the asked range of the current version."""
        path = urlsplit(h.path).path.lstrip("/")
        assert isinstance(self.s3, S3Server)  # (ignoring If-Match: an S3 server's)
        fs = self.s3.fs()
        size = int(fs.info(path)["size"])
        etag = str(fs.info(path)["ETag"])
        m = re.fullmatch(r"bytes=(\d+)-(\d*)", h.headers.get("Range") or "")
        first = int(m.group(1)) if m else 0
        last = min(size - 1, int(m.group(2))) if m and m.group(2) else size - 1
        data = fs.cat_file(path, start=first, end=last + 1)
        return 206, [("ETag", etag), ("Content-Range", f"bytes {first}-{last}/{size}"),
                     ("Content-Type", "binary/octet-stream")], bytes(data)
