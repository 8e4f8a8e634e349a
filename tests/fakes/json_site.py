"""An HTTP JSON endpoint on loopback: the far end of a team's declared `http_json` checks.

Serves GET from a table (path → JSON document, (status, body bytes) for anything else,
(status, b"", location) for a redirect, or a function of the request's headers returning one of
those) and records every path asked, and the headers it came with (`asked`), so a test sees how
often hippo fetched and what it sent. The SSRF guard refuses
loopback unless the verifier's policy lists it (`private=("127.0.0.0/8",)`), as tests do.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.fakes.loopback import LoopbackServer


class JsonSite:
    def __init__(self, routes: dict[str, Any]) -> None:
        self.routes = routes
        self.seen: list[str] = []
        self.asked: list[tuple[str, dict[str, str]]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.seen.append(self.path)
                site.asked.append((self.path, dict(self.headers.items())))
                found = site.routes.get(self.path)
                if callable(found):
                    found = found(dict(self.headers.items()))
                where = ""
                if isinstance(found, tuple):
                    status, body, *rest = found
                    where = rest[0] if rest else ""
                elif found is None:
                    status, body = 404, b'{"message": "not found"}'
                else:
                    status, body = 200, json.dumps(found).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if where:
                    self.send_header("Location", where)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                return

        self.server = LoopbackServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> JsonSite:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()
