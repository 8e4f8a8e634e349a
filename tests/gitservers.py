"""Real git servers on 127.0.0.1 for tests and benchmarks, each serving the bare repositories in
one folder, the way a team's git host would:

- `http_server(root)`: smart HTTP, git's own `git http-backend` (CGI) behind a small threaded HTTP
  server that requires basic auth on every request, as GitHub and GitLab do. It decodes chunked and
  gzip request bodies (libgit2 and git send pushes chunked) before piping them to the CGI.
- `git_daemon(root)`: `git daemon` with receive-pack enabled (`git://`, no auth).
- `ssh_server(root)`: OpenSSH's sshd (Debian's `openssh-server`) with generated host and client
  keys and a test-only config in a temp folder.
- `refuse_pushes(repo, message)`: a pre-receive hook that refuses the next pushes.
- `black_hole()`: a port that accepts connections and never answers (a firewall that drops).

Nothing here imports hippo: the servers are the far end, real and unaware of the client. Every
process a server starts is stopped by `stop()` (the context managers call it), and
`processes_mentioning(folder)` lets a test prove that none survived.
"""

from __future__ import annotations

import base64
import gzip
import os
import pwd
import shlex
import shutil
import signal
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

import pytest

SSHD = "/usr/sbin/sshd"  # Debian's openssh-server; sshd re-execs itself, so an absolute path


# -- helpers ---------------------------------------------------------------------------------


def bare_repo(root: Path, name: str = "memory.git") -> Path:
    """An empty bare repository `root/name` whose HEAD is main (the way a host creates one)."""
    path = root / name
    subprocess.run(
        ["git", "init", "-q", "--bare", "--initial-branch=main", str(path)],
        check=True,
        capture_output=True,
    )
    return path


def free_port() -> int:
    """A port nothing listens on right now (a server started on it may still race; callers that
    start a subprocess retry on another port when it fails to bind)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """Direct children of pid, from /proc (Linux)."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(x) for x in text.split()]


def _descendants(pid: int) -> list[int]:
    """All descendants of pid, deepest first (so they can be stopped before their parents)."""
    out: list[int] = []
    for child in _children(pid):
        out.extend(_descendants(child))
        out.append(child)
    return out


def _signal(pid: int, sig: signal.Signals) -> None:
    with suppress(ProcessLookupError):
        os.kill(pid, sig)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _stop_tree(proc: subprocess.Popen[bytes], timeout: float = 5.0) -> None:
    """Stop a server process and everything it started. Children first, so the server (still
    alive) reaps them and none is left a zombie of init; then the server itself; SIGKILL for
    whatever ignores SIGTERM."""
    children = _descendants(proc.pid)
    for pid in children:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while any(_alive(p) for p in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pid in [*_descendants(proc.pid), *children]:
        if _alive(pid):
            _signal(pid, signal.SIGKILL)
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def processes_mentioning(text: str) -> list[int]:
    """Live processes (other than this one) whose command line or environment mentions text, e.g.
    a server's root folder: how a test proves that no server process survived its stop()."""
    found: list[int] = []
    needle = text.encode()
    for entry in Path("/proc").iterdir():
        if (
            not entry.name.isdigit()
            or int(entry.name) == os.getpid()
            or not _alive(int(entry.name))
        ):
            continue
        for part in ("cmdline", "environ"):
            try:
                if needle in (entry / part).read_bytes():
                    found.append(int(entry.name))
                    break
            except OSError:
                continue
    return found


def _git_env() -> dict[str, str]:
    """The environment for a server's git: this one, minus anything that points git elsewhere."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GIT_DIR", "GIT_WORK_TREE"))}
    env.pop("GIT_INDEX_FILE", None)
    return env


# -- smart HTTP: git http-backend behind a threaded HTTP server ------------------------------


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
        env = _git_env() | {
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


# -- git daemon ------------------------------------------------------------------------------


class GitDaemon:
    """`git daemon` with receive-pack on 127.0.0.1:port, serving the bare repositories in root."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.port = 0
        self.counts: dict[str, int] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()

    @property
    def receive_pack_requests(self) -> int:
        return self.counts.get("receive_pack", 0)

    def url(self, name: str) -> str:
        return f"git://127.0.0.1:{self.port}/{name}"

    def _spawn(self, port: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                "git",
                "daemon",
                "--reuseaddr",
                "--verbose",  # logs each request to stderr: how pushes are counted
                f"--base-path={self.root}",
                "--export-all",
                "--enable=receive-pack",
                "--informative-errors",
                "--listen=127.0.0.1",
                f"--port={port}",
                str(self.root),
            ],
            env=_git_env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )

    def start(self) -> GitDaemon:
        """Start on a free port (or on the same port after go_down()); wait until it accepts."""
        for _ in range(5):
            port = self.port or free_port()
            proc = self._spawn(port)
            deadline = time.monotonic() + 10
            while proc.poll() is None and not _accepts(port) and time.monotonic() < deadline:
                time.sleep(0.02)
            if proc.poll() is None and _accepts(port):
                self._proc, self.port = proc, port
                self._reader = threading.Thread(target=self._read_log, args=(proc,), daemon=True)
                self._reader.start()
                return self
            _stop_tree(proc)
            if proc.stderr is not None:
                proc.stderr.close()
        raise RuntimeError(f"git daemon did not start on 127.0.0.1 (last port {port})")

    def _read_log(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            if b"Request receive-pack" in line:
                with self._lock:
                    self.counts["receive_pack"] = self.counts.get("receive_pack", 0) + 1

    def go_down(self) -> None:
        """Stop the daemon (and the connections it serves); come_back() restarts on the port."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        _stop_tree(proc)
        if self._reader is not None:
            self._reader.join(5)
        if proc.stderr is not None:
            proc.stderr.close()

    def come_back(self) -> None:
        self.start()

    def stop(self) -> None:
        self.go_down()

    def __enter__(self) -> GitDaemon:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def git_daemon(root: Path) -> Iterator[GitDaemon]:
    """git:// over the bare repositories in root, receive-pack enabled; stopped on exit."""
    with GitDaemon(root) as daemon:
        yield daemon


# -- ssh: OpenSSH's sshd with a test-only config ---------------------------------------------


class SshUnavailable(RuntimeError):
    """sshd is not installed or cannot run here (tests skip with this reason)."""


class SshServer:
    """sshd on 127.0.0.1:port, logging in as the current user with generated keys only.

    Clients: `git_ssh_command(key)` for the git CLI; for libgit2 (pygit2), `Keypair(user,
    key + ".pub", key, passphrase)` and a host check against `known_hosts` (libgit2 reads
    `<homedir>/.ssh/known_hosts`; `libgit2_home` is such a folder).
    """

    passphrase = "correct horse battery"

    def __init__(self, root: Path, folder: Path) -> None:
        self.root = Path(root)
        self.folder = Path(folder)  # keys, config, known_hosts, pid file, log
        self.user = pwd.getpwuid(os.getuid()).pw_name
        self.port = 0
        self.host_key = self.folder / "ssh_host_ed25519_key"
        self.client_key = self.folder / "client_ed25519"
        self.client_key_passphrase_protected = self.folder / "client_rsa"
        self.stranger_key = self.folder / "stranger_ed25519"  # not authorized: for auth tests
        self.known_hosts = self.folder / "known_hosts"
        self.libgit2_home = self.folder / "home"  # no ':' in it: libgit2 splits paths on ':'
        self.log = self.folder / "sshd.log"
        self._proc: subprocess.Popen[bytes] | None = None

    def url(self, name: str) -> str:
        return f"ssh://{self.user}@127.0.0.1:{self.port}{(self.root / name).resolve()}"

    def git_ssh_command(self, key: Path | None = None) -> str:
        """GIT_SSH_COMMAND for the git CLI: this key only, strict host check against known_hosts."""
        return shlex.join(
            [
                "ssh",
                "-i",
                str(key or self.client_key),
                "-o",
                "IdentitiesOnly=yes",
                "-o",
                "BatchMode=yes",
                "-o",
                f"UserKnownHostsFile={self.known_hosts}",
                "-o",
                "StrictHostKeyChecking=yes",
                "-o",
                "GlobalKnownHostsFile=/dev/null",
            ]
        )

    def _keygen(self, path: Path, kind: str, passphrase: str = "") -> None:
        bits = ["-b", "3072"] if kind == "rsa" else []
        subprocess.run(
            [
                "ssh-keygen",
                "-q",
                "-t",
                kind,
                *bits,
                "-N",
                passphrase,
                "-C",
                path.name,
                "-f",
                str(path),
            ],
            check=True,
            capture_output=True,
        )

    def _prepare(self) -> None:
        if not os.access(SSHD, os.X_OK) or shutil.which("ssh-keygen") is None:
            raise SshUnavailable(
                f"{SSHD} or ssh-keygen is missing: install Debian's openssh-server "
                "(apt-get install -y openssh-server)"
            )
        if os.geteuid() == 0 and not Path("/run/sshd").is_dir():
            # sshd running as root needs its privilege-separation folder; Debian's service unit
            # creates it at boot (RuntimeDirectory=sshd), a container has none.
            try:
                Path("/run/sshd").mkdir(mode=0o755, parents=True, exist_ok=True)
            except OSError as e:
                raise SshUnavailable(f"sshd needs /run/sshd and it cannot be made: {e}") from e
        self.folder.mkdir(parents=True, exist_ok=True)
        self._keygen(self.host_key, "ed25519")
        self._keygen(self.client_key, "ed25519")
        self._keygen(self.client_key_passphrase_protected, "rsa", self.passphrase)
        self._keygen(self.stranger_key, "ed25519")
        authorized = self.folder / "authorized_keys"
        authorized.write_text(
            Path(f"{self.client_key}.pub").read_text()
            + Path(f"{self.client_key_passphrase_protected}.pub").read_text()
        )

    def _config(self, port: int) -> Path:
        config = self.folder / "sshd_config"
        config.write_text(
            "\n".join(
                [
                    "ListenAddress 127.0.0.1",
                    f"Port {port}",
                    f"HostKey {self.host_key}",
                    f"AuthorizedKeysFile {self.folder / 'authorized_keys'}",
                    f"PidFile {self.folder / 'sshd.pid'}",
                    "StrictModes no",  # the temp folder is not a home with 0700 .ssh
                    "UsePAM no",
                    "PermitRootLogin prohibit-password",  # keys only, also when tests run as root
                    "PasswordAuthentication no",
                    "KbdInteractiveAuthentication no",
                    "PubkeyAuthentication yes",
                    "AcceptEnv GIT_PROTOCOL",
                    "LogLevel VERBOSE",
                    "",
                ]
            )
        )
        return config

    def start(self) -> SshServer:
        self._prepare()
        for _ in range(5):
            port = free_port()
            config = self._config(port)
            with self.log.open("ab") as log:
                proc = subprocess.Popen(
                    [SSHD, "-D", "-e", "-f", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            deadline = time.monotonic() + 10
            while proc.poll() is None and not _accepts(port) and time.monotonic() < deadline:
                time.sleep(0.02)
            if proc.poll() is None and _accepts(port):
                self._proc, self.port = proc, port
                host = Path(f"{self.host_key}.pub").read_text().split()
                line = f"[127.0.0.1]:{port} {host[0]} {host[1]}\n"
                self.known_hosts.write_text(line)
                (self.libgit2_home / ".ssh").mkdir(parents=True, exist_ok=True)
                (self.libgit2_home / ".ssh" / "known_hosts").write_text(line)
                return self
            _stop_tree(proc)
        raise SshUnavailable(f"sshd did not start: {self.log.read_text()[-2000:]}")

    def stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None:
            _stop_tree(proc)

    def __enter__(self) -> SshServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


@contextmanager
def ssh_server(root: Path, folder: Path | None = None) -> Iterator[SshServer]:
    """sshd over the bare repositories in root (keys and config in folder, default
    root/.sshd); stopped with every session it started on exit. Raises SshUnavailable."""
    with SshServer(root, folder or Path(root) / ".sshd") as server:
        yield server


# -- a hook that refuses pushes, and a server that never answers ------------------------------


def refuse_pushes(repo: Path, message: str, count: int = 1) -> Path:
    """Install hooks/pre-receive in the bare repo: the next `count` pushes are refused with
    `message` (relayed to the client as "remote: <message>"); later pushes pass. Concurrent
    pushes take a lock, so exactly `count` are refused. Returns the counter file."""
    hooks = Path(repo) / "hooks"
    hooks.mkdir(exist_ok=True)
    counter = hooks / "refusals-left"
    counter.write_text(f"{count}\n")
    hook = hooks / "pre-receive"
    c, lock, msg = (shlex.quote(str(p)) for p in (counter, hooks / "refusals.lock", message))
    hook.write_text(
        "#!/bin/sh\n"
        "# installed by tests/gitservers.py refuse_pushes()\n"
        "cat >/dev/null\n"
        f"exec 9>{lock}\n"
        "flock 9\n"
        f"n=$(cat {c} 2>/dev/null || echo 0)\n"
        'if [ "$n" -gt 0 ]; then\n'
        f"  echo $((n - 1)) > {c}\n"
        f"  printf '%s\\n' {msg} >&2\n"
        "  exit 1\n"
        "fi\n"
    )
    hook.chmod(0o755)
    return counter


@contextmanager
def black_hole() -> Iterator[int]:
    """A port whose listening socket never accepts: connections complete (the kernel queues
    them) and then nothing is ever answered, as behind a firewall that drops traffic."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen(64)
        yield int(s.getsockname()[1])


# -- pytest fixtures (tests/conftest.py imports them) ----------------------------------------


@pytest.fixture
def http_git(tmp_path: Path) -> Iterator[HttpGitServer]:
    """Smart HTTP with basic auth over tmp_path/srv, holding an empty bare memory.git."""
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    with http_server(root) as server:
        yield server


@pytest.fixture
def git_daemon_server(tmp_path: Path) -> Iterator[GitDaemon]:
    """git daemon over tmp_path/srv, holding an empty bare memory.git."""
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    with git_daemon(root) as daemon:
        yield daemon


@pytest.fixture
def ssh_git(tmp_path: Path) -> Iterator[SshServer]:
    """sshd over tmp_path/srv, holding an empty bare memory.git; skips if sshd cannot run."""
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    try:
        server = SshServer(root, tmp_path / "sshd").start()
    except SshUnavailable as e:
        pytest.skip(str(e))
    try:
        yield server
    finally:
        server.stop()
