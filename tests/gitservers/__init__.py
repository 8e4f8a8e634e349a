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

Modules: procs (ports, process trees), smart_http, daemon, ssh; this one re-exports them and
holds the hook, the black hole and the pytest fixtures (tests/conftest.py imports those).
"""

from __future__ import annotations

import shlex
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.gitservers.daemon import GitDaemon, git_daemon
from tests.gitservers.procs import free_port, processes_mentioning
from tests.gitservers.smart_http import HttpGitServer, http_server
from tests.gitservers.ssh import SshServer, SshUnavailable, ssh_server

__all__ = [
    "GitDaemon",
    "HttpGitServer",
    "SshServer",
    "SshUnavailable",
    "bare_repo",
    "black_hole",
    "free_port",
    "git_daemon",
    "git_daemon_server",
    "http_git",
    "http_server",
    "processes_mentioning",
    "refuse_pushes",
    "ssh_git",
    "ssh_server",
]


def bare_repo(root: Path, name: str = "memory.git") -> Path:
    """An empty bare repository `root/name` whose HEAD is main (the way a host creates one)."""
    path = root / name
    subprocess.run(
        ["git", "init", "-q", "--bare", "--initial-branch=main", str(path)],
        check=True,
        capture_output=True,
    )
    return path


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
        "# installed by tests/gitservers refuse_pushes()\n"
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


@pytest.fixture
def http_git(tmp_path: Path) -> Iterator[HttpGitServer]:
    """Smart HTTP with basic auth over tmp_path/<kind>-srv, holding an empty bare memory.git."""
    root = tmp_path / "http-srv"
    root.mkdir()
    bare_repo(root)
    with http_server(root) as server:
        yield server


@pytest.fixture
def git_daemon_server(tmp_path: Path) -> Iterator[GitDaemon]:
    """git daemon over tmp_path/<kind>-srv, holding an empty bare memory.git."""
    root = tmp_path / "daemon-srv"
    root.mkdir()
    bare_repo(root)
    with git_daemon(root) as daemon:
        yield daemon


@pytest.fixture
def ssh_git(tmp_path: Path) -> Iterator[SshServer]:
    """sshd over tmp_path/<kind>-srv, holding an empty bare memory.git; skips if sshd cannot run."""
    root = tmp_path / "ssh-srv"
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
