"""The loopback HTTP server the fakes run on: a client that hangs up early (a verifier that stops
reading at its size cap, a request cut by a timeout) is the client's business, not an error. The
standard server prints such a traceback to stderr from its handler thread, where it lands in
whichever test of the same xdist worker is capturing stderr at that moment (CI saw one break a
test that counts stderr lines)."""

from __future__ import annotations

import sys
from http.server import ThreadingHTTPServer


class LoopbackServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # BrokenPipeError, ConnectionResetError: the client left
        super().handle_error(request, client_address)  # type: ignore[arg-type]
