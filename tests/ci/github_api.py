"""GitHub's REST API for issue comments, on loopback: the endpoints `drivable ci` calls, kept in memory.

The real API needs the network and a repository; this serves the same three requests over real
HTTP (list a pull request's comments page by page, create one, edit one), checks the bearer token,
and records every request, so a test sees what a run did to the pull request.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

LIST = re.compile(r"^/repos/([^/]+/[^/]+)/issues/(\d+)/comments$")
EDIT = re.compile(r"^/repos/([^/]+/[^/]+)/issues/comments/(\d+)$")


@dataclass
class Api:
    token: str
    refuse_writes: bool = False  # a fork's pull request: the token may read, not write
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str]] = field(default_factory=list)
    url: str = ""

    def add(self, body: str) -> dict[str, Any]:
        comment = {"id": 1000 + len(self.comments), "body": body, "user": {"login": "someone"}}
        self.comments.append(comment)
        return comment


def _handler(api: Api) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def _send(self, status: int, payload: Any) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _route(self, method: str) -> None:
            parsed = urlparse(self.path)
            api.requests.append((method, parsed.path))
            if self.headers.get("Authorization") != f"Bearer {api.token}":
                return self._send(401, {"message": "Bad credentials"})
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"null")
            listed, edited = LIST.match(parsed.path), EDIT.match(parsed.path)
            if method != "GET" and api.refuse_writes:
                return self._send(403, {"message": "Resource not accessible by integration"})
            if listed and method == "GET":
                query = parse_qs(parsed.query)
                size, page = int(query["per_page"][0]), int(query["page"][0])
                return self._send(200, api.comments[(page - 1) * size : page * size])
            if listed and method == "POST":
                return self._send(201, api.add(body["body"]))
            if edited and method == "PATCH":
                for comment in api.comments:
                    if comment["id"] == int(edited.group(2)):
                        comment["body"] = body["body"]
                        return self._send(200, comment)
            return self._send(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._route("GET")

        def do_POST(self) -> None:
            self._route("POST")

        def do_PATCH(self) -> None:
            self._route("PATCH")

    return Handler


@contextmanager
def serving(api: Api) -> Iterator[Api]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(api))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    api.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
