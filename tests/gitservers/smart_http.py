"""Smart HTTP: git's own `git http-backend` (CGI) behind a small threaded HTTP server on 127.0.0.1
that requires basic auth on every request, as GitHub and GitLab do. It decodes chunked and gzip
request bodies (libgit2 and git send pushes chunked) before piping them to the CGI."""

from __future__ import annotations

import base64
import gzip
import socket
import subprocess
import threading
import time
import zlib
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from io import BufferedIOBase
from pathlib import Path
from urllib.parse import unquote, urlsplit

from tests.gitservers.procs import git_env


class _Handler(BaseHTTPRequestHandler):
    """One request: check basic auth, read the body (chunked and gzip decoded), run the CGI."""

    protocol_version = "HTTP/1.1"  # keep-alive, and chunked request bodies, as git hosts speak
    server: _Server

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: object) -> None:
        pass  # quiet: a failing test prints what git printed, not an access log

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        self.server.owner._track(self.connection, add=False)
        with suppress(OSError):  # the connection was cut by go_down()/stop()
            super().finish()

    def _user(self) -> str | None:
        owner = self.server.owner
        header = self.headers.get("Authorization", "")
        scheme, _, value = header.partition(" ")
        if scheme.lower() != "basic":
            return None
        try:
            user, _, password = base64.b64decode(value).decode().partition(":")
        except ValueError:
            return None
        return user if (user, password) == (owner.user, owner.password) else None

    def _body(self) -> bytes:
        if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
            self.server.owner._count("chunked")
            body = _read_chunked(self.rfile)
        else:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        encoding = self.headers.get("Content-Encoding", "").lower()
        if encoding in ("gzip", "x-gzip"):
            self.server.owner._count("gzip")
            body = gzip.decompress(body)
        elif encoding == "deflate":
            body = zlib.decompress(body)
        return body

    def _serve(self) -> None:
        owner = self.server.owner
        owner._count("requests")
        if owner.delay:
            time.sleep(owner.delay)  # a slow host: every request waits this long first
        user = self._user()
        if owner.require_auth and user is None:
            owner._count("unauthorized")
            has_body = self.headers.get("Content-Length") not in (None, "0") or (
                "Transfer-Encoding" in self.headers
            )
            if has_body:
                self.close_connection = True  # the body is left unread: this connection is done
            self._reply(
                401,
                [("WWW-Authenticate", 'Basic realm="hippo test git"')],
                b"authentication required\n",
            )
            return
        body = self._body() if self.command == "POST" else b""
        url = urlsplit(self.path)
        env = git_env() | {
            "GIT_PROJECT_ROOT": str(owner.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            # http-backend enables receive-pack only for an authenticated REMOTE_USER by default;
            # the unauthenticated mode (require_auth=False) must accept pushes too.
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": "http.receivepack",
            "GIT_CONFIG_VALUE_0": "true",
            "GATEWAY_INTERFACE": "CGI/1.1",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "REQUEST_METHOD": self.command,
            "PATH_INFO": unquote(url.path),
            "QUERY_STRING": url.query,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "REMOTE_ADDR": self.client_address[0],
            "REMOTE_USER": user or "",
        }
        if "Git-Protocol" in self.headers:
            env["GIT_PROTOCOL"] = self.headers["Git-Protocol"]
        proc = subprocess.Popen(
            ["git", "http-backend"],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        owner._started(proc, add=True)
        try:
            out, err = proc.communicate(body, timeout=120)
        finally:
            owner._started(proc, add=False)
        head, sep, payload = out.partition(b"\r\n\r\n")
        if not sep:
            head, _, payload = out.partition(b"\n\n")
        status, reason, headers = 200, "OK", []
        for line in head.decode("latin-1").splitlines():
            name, _, value = line.partition(":")
            if name.lower() == "status":
                code, _, reason = value.strip().partition(" ")
                status = int(code)
            elif name:
                headers.append((name, value.strip()))
        if self.command == "POST" and url.path.endswith("/git-receive-pack"):
            owner._count("receive_pack")
        elif self.command == "POST" and url.path.endswith("/git-upload-pack"):
            owner._count("upload_pack")  # a fetch that wanted objects
        elif url.path.endswith("/info/refs") and "git-upload-pack" in url.query:
            owner._count("upload_pack_refs")  # every fetch starts here (and `ls-remote`)
        if status >= 500 or (not out and err):
            owner.errors.append(err.decode(errors="replace"))
        self._reply(status, headers, payload, reason)

    def _reply(
        self, status: int, headers: list[tuple[str, str]], body: bytes, reason: str | None = None
    ) -> None:
        self.send_response(status, reason)
        for name, value in headers:
            if name.lower() != "content-length":
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _read_chunked(rfile: BufferedIOBase) -> bytes:
    """A `Transfer-Encoding: chunked` body (RFC 9112 §7.1), trailers skipped."""
    out = bytearray()
    while True:
        size = int(rfile.readline(65537).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            while rfile.readline(65537) not in (b"\r\n", b"\n", b""):
                pass
            return bytes(out)
        out += rfile.read(size)
        rfile.readline(3)  # the CRLF after each chunk


def _cut(conn: socket.socket) -> None:
    """End a connection from our side: the handler's next read sees EOF and the thread ends."""
    with suppress(OSError):
        conn.shutdown(socket.SHUT_RDWR)


class _Server(ThreadingHTTPServer):
    daemon_threads = False  # server_close() joins the handler threads: none outlives stop()
    block_on_close = True

    def __init__(self, port: int, owner: HttpGitServer) -> None:
        self.owner = owner
        super().__init__(("127.0.0.1", port), _Handler)

    def handle_error(self, request: object, client_address: object) -> None:
        pass  # a client that hangs up mid-request (or go_down() cutting it) is not a test failure


class HttpGitServer:
    """git http-backend on 127.0.0.1:port, serving the bare repositories under root."""

    def __init__(self, root: Path, user: str, password: str, require_auth: bool) -> None:
        self.root = Path(root)
        self.user = user
        self.password = password
        self.require_auth = require_auth
        self.delay = 0.0  # seconds added to every request (a slow git host)
        self.port = 0
        self.counts: dict[str, int] = {}
        self.errors: list[str] = []  # stderr of CGI runs that failed (for a failing test to show)
        self._lock = threading.Lock()
        self._connections: set[socket.socket] = set()
        self._procs: set[subprocess.Popen[bytes]] = set()
        self._server: _Server | None = None
        self._down = False
        self._thread: threading.Thread | None = None

    # counters ------------------------------------------------------------------------------
    @property
    def receive_pack_requests(self) -> int:
        """POSTs to git-receive-pack served: one per push that reached the server."""
        return self.counts.get("receive_pack", 0)

    def _count(self, what: str) -> None:
        with self._lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def _track(self, conn: socket.socket, add: bool) -> None:
        with self._lock:
            if add and self._down:  # accepted just before go_down(): cut it like the others
                _cut(conn)
            (self._connections.add if add else self._connections.discard)(conn)

    def _started(self, proc: subprocess.Popen[bytes], add: bool) -> None:
        with self._lock:
            (self._procs.add if add else self._procs.discard)(proc)

    # life ----------------------------------------------------------------------------------
    def url(self, name: str) -> str:
        """The repository's URL, without credentials (a client passes them separately)."""
        return f"http://127.0.0.1:{self.port}/{name}"

    def url_with_credentials(self, name: str) -> str:
        """The URL with user:password inside, the way git's CLI can be given a token."""
        return f"http://{self.user}:{self.password}@127.0.0.1:{self.port}/{name}"

    def start(self) -> HttpGitServer:
        """Listen (on a free port the first time, on the same port after go_down())."""
        self._server = _Server(self.port, self)
        self._down = False
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def go_down(self) -> None:
        """The server goes away: the listening socket closes (new connections are refused) and
        open connections are cut. come_back() listens again on the same port."""
        server, self._server = self._server, None
        if server is None:
            return
        server.shutdown()
        with self._lock:
            self._down = True
            for conn in self._connections:
                _cut(conn)
        server.server_close()  # joins the handler threads, so their CGI runs have ended
        if self._thread is not None:
            self._thread.join()

    def come_back(self) -> None:
        self.start()

    def stop(self) -> None:
        self.go_down()
        with self._lock:
            procs = list(self._procs)
        for proc in procs:  # none should be left (handler threads were joined); belt and braces
            proc.kill()
            proc.wait()

    def __enter__(self) -> HttpGitServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def http_server(
    root: Path, user: str = "hippo", password: str = "s3cret", require_auth: bool = True
) -> Iterator[HttpGitServer]:
    """Smart HTTP over the bare repositories in root; stopped (every CGI run ended) on exit."""
    with HttpGitServer(root, user, password, require_auth) as server:
        yield server
