"""The real git servers of tests/gitservers work with the plain git CLI (and pygit2, which hippo
uses), enforce their auth, take chunked and gzip bodies, refuse pushes on demand, and leave no
process behind when stopped."""

from __future__ import annotations

import gzip
import os
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.client import HTTPConnection, HTTPException
from pathlib import Path

import pygit2
import pytest

from tests.gitservers import (
    GitDaemon,
    HttpGitServer,
    SshServer,
    SshUnavailable,
    bare_repo,
    black_hole,
    git_daemon,
    http_server,
    processes_mentioning,
    refuse_pushes,
)


def git(
    cwd: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        ["git", *args],
        cwd=cwd,
        env=os.environ | {"GIT_TERMINAL_PROMPT": "0"} | (env or {}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed:\n{proc.stderr}")
    return proc


def commit_file(clone: Path, name: str, text: str) -> str:
    (clone / name).write_text(text)
    git(clone, "add", name)
    git(clone, "commit", "-qm", f"add {name}")
    return git(clone, "rev-parse", "HEAD").stdout.strip()


def remote_main(repo: Path) -> str:
    return git(repo, "rev-parse", "--verify", "-q", "main", check=False).stdout.strip()


@dataclass
class Served:
    """A bare repo on a running server, and how the git CLI reaches it."""

    kind: str
    root: Path
    repo: Path
    url: str
    env: dict[str, str] = field(default_factory=dict)
    server: HttpGitServer | GitDaemon | SshServer | None = None


@pytest.fixture(params=["http", "git-daemon", "ssh"])
def served(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Served]:
    root = tmp_path / "srv"
    root.mkdir()
    repo = bare_repo(root)
    if request.param == "http":
        with http_server(root) as h:
            yield Served("http", root, repo, h.url_with_credentials("memory.git"), server=h)
    elif request.param == "git-daemon":
        with git_daemon(root) as d:
            yield Served("git-daemon", root, repo, d.url("memory.git"), server=d)
    else:
        try:
            s = SshServer(root, tmp_path / "sshd").start()
        except SshUnavailable as e:
            pytest.skip(str(e))
        try:
            env = {"GIT_SSH_COMMAND": s.git_ssh_command()}
            yield Served("ssh", root, repo, s.url("memory.git"), env, s)
        finally:
            s.stop()


def test_clone_commit_push_fetch_with_the_git_cli(served: Served, tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    git(tmp_path, "clone", "-q", served.url, str(a), env=served.env)
    first = commit_file(a, "one.md", "one\n")
    git(a, "push", "-q", "origin", "HEAD:main", env=served.env)
    assert remote_main(served.repo) == first

    git(tmp_path, "clone", "-q", served.url, str(b), env=served.env)
    assert (b / "one.md").read_text() == "one\n"
    second = commit_file(b, "two.md", "two\n")
    git(b, "push", "-q", "origin", "HEAD:main", env=served.env)

    git(a, "fetch", "-q", "origin", env=served.env)
    assert git(a, "rev-parse", "origin/main").stdout.strip() == second
    # a stale push is refused by the server, the way hippo's writers will meet it
    commit_file(a, "three.md", "three\n")
    stale = git(a, "push", "origin", "HEAD:main", env=served.env, check=False)
    assert stale.returncode != 0 and "rejected" in stale.stderr
    assert remote_main(served.repo) == second
    git(served.repo, "fsck", "--strict")
    if isinstance(served.server, HttpGitServer | GitDaemon):
        assert served.server.receive_pack_requests >= 2


def test_every_server_process_is_gone_after_stop(served: Served, tmp_path: Path) -> None:
    git(tmp_path, "clone", "-q", served.url, str(tmp_path / "c"), env=served.env)
    marker = str(tmp_path)
    lingering: subprocess.Popen[bytes] | None = None
    if served.kind == "ssh":
        assert isinstance(served.server, SshServer)
        # an open session: git-upload-pack on the server waits for our request
        lingering = subprocess.Popen(
            [
                *served.server.git_ssh_command().split(),
                "-p",
                str(served.server.port),
                f"{served.server.user}@127.0.0.1",
                f"git-upload-pack '{served.repo}'",
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert lingering.stdout is not None
        assert lingering.stdout.read(4)  # the ref advertisement began: the session is up
    elif served.kind == "git-daemon":
        # an open connection: the daemon's child upload-pack waits for our request
        assert isinstance(served.server, GitDaemon)
        conn = socket.create_connection(("127.0.0.1", served.server.port))
        req = b"git-upload-pack /memory.git\0host=127.0.0.1\0"
        conn.sendall(b"%04x" % (len(req) + 4) + req)
        assert conn.recv(4)
    else:
        # an idle keep-alive connection: its handler thread waits for the next request
        assert isinstance(served.server, HttpGitServer)
        keep = HTTPConnection("127.0.0.1", served.server.port, timeout=10)
        keep.request("GET", "/memory.git/info/refs?service=git-upload-pack")
        keep.getresponse().read()
        assert handler_threads()
    if served.kind != "http":  # http's CGI processes live only while a request runs
        assert processes_mentioning(marker), "the server's processes are visible while it runs"

    assert served.server is not None
    served.server.stop()

    if lingering is not None:
        lingering.kill()
        lingering.wait()
    elif served.kind == "git-daemon":
        conn.close()
    else:
        keep.close()
    deadline = time.monotonic() + 5
    while processes_mentioning(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert processes_mentioning(marker) == []
    assert handler_threads() == []
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", _port(served)), timeout=2).close()


def handler_threads() -> list[threading.Thread]:
    """The git HTTP server's request threads: non-daemon (its server_close() joins them), unlike
    the loopback fakes' daemon threads that another test in this xdist worker may leave."""
    return [t for t in threading.enumerate() if "process_request_thread" in t.name and not t.daemon]


def _port(served: Served) -> int:
    assert served.server is not None
    return served.server.port


# -- HTTP: basic auth, chunked and gzip bodies, down and back --------------------------------


@pytest.fixture
def hs(tmp_path: Path) -> Iterator[HttpGitServer]:
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    with http_server(root) as server:
        yield server


def test_http_requires_basic_auth_on_every_request(hs: HttpGitServer, tmp_path: Path) -> None:
    assert "s3cret" not in hs.url("memory.git")
    missing = git(tmp_path, "clone", hs.url("memory.git"), "x", check=False)
    assert missing.returncode != 0 and "could not read Username" in missing.stderr
    wrong = git(
        tmp_path,
        "clone",
        f"http://hippo:wrong@127.0.0.1:{hs.port}/memory.git",
        "y",
        check=False,
    )
    assert wrong.returncode != 0 and "Authentication failed" in wrong.stderr
    assert hs.counts["unauthorized"] >= 2

    conn = http_conn(hs)
    conn.request("GET", "/memory.git/info/refs?service=git-upload-pack")
    resp = conn.getresponse()
    assert resp.status == 401
    assert resp.getheader("WWW-Authenticate") == 'Basic realm="hippo test git"'
    resp.read()


def test_http_refuses_a_push_with_a_wrong_password_and_writes_nothing(
    hs: HttpGitServer, tmp_path: Path
) -> None:
    clone = tmp_path / "c"
    git(tmp_path, "clone", "-q", hs.url_with_credentials("memory.git"), str(clone))
    commit_file(clone, "a.md", "a\n")
    bad = f"http://hippo:nope@127.0.0.1:{hs.port}/memory.git"
    push = git(clone, "push", bad, "HEAD:main", check=False)
    assert push.returncode != 0 and "Authentication failed" in push.stderr
    assert remote_main(hs.root / "memory.git") == ""
    assert hs.receive_pack_requests == 0


def test_http_takes_a_chunked_push_from_git_and_from_pygit2(
    hs: HttpGitServer, tmp_path: Path
) -> None:
    clone = tmp_path / "c"
    git(tmp_path, "clone", "-q", hs.url_with_credentials("memory.git"), str(clone))
    (clone / "big.bin").write_bytes(os.urandom(256 * 1024))  # incompressible: a big pack
    git(clone, "add", "big.bin")
    git(clone, "commit", "-qm", "big")
    # a post buffer smaller than the pack makes git send it with Transfer-Encoding: chunked
    git(clone, "-c", "http.postBuffer=4096", "push", "-q", "origin", "HEAD:main")
    assert hs.counts.get("chunked", 0) >= 1
    assert remote_main(hs.root / "memory.git") == git(clone, "rev-parse", "HEAD").stdout.strip()

    # libgit2 (hippo's git) always streams its push body chunked
    chunked_before = hs.counts["chunked"]
    repo = pygit2.Repository(str(clone))
    sig = pygit2.Signature("p", "p@example.com")
    blob = repo.create_blob(b"from pygit2\n")
    tb = repo.TreeBuilder(repo.head.peel(pygit2.Commit).tree)
    tb.insert("p.md", blob, pygit2.enums.FileMode.BLOB)
    oid = repo.create_commit("HEAD", sig, sig, "p", tb.write(), [repo.head.target])
    callbacks = pygit2.RemoteCallbacks(credentials=pygit2.UserPass("hippo", "s3cret"))
    repo.remotes.create_anonymous(hs.url("memory.git")).push(
        ["HEAD:refs/heads/main"], callbacks=callbacks
    )
    assert hs.counts["chunked"] > chunked_before
    assert remote_main(hs.root / "memory.git") == str(oid)
    git(hs.root / "memory.git", "fsck", "--strict")


def test_http_decodes_a_gzip_chunked_upload_pack_request(hs: HttpGitServer, tmp_path: Path) -> None:
    clone = tmp_path / "c"
    git(tmp_path, "clone", "-q", hs.url_with_credentials("memory.git"), str(clone))
    head = commit_file(clone, "a.md", "a\n")
    git(clone, "push", "-q", "origin", "HEAD:main")
    want = f"want {head}\n".encode()
    body = gzip.compress(b"%04x" % (len(want) + 4) + want + b"0000" + b"0009done\n")
    conn = http_conn(hs)
    conn.putrequest("POST", "/memory.git/git-upload-pack")
    for name, value in {
        "Authorization": "Basic aGlwcG86czNjcmV0",  # hippo:s3cret
        "Content-Type": "application/x-git-upload-pack-request",
        "Content-Encoding": "gzip",
        "Transfer-Encoding": "chunked",
    }.items():
        conn.putheader(name, value)
    conn.endheaders()
    for i in range(0, len(body), 7):  # many small chunks
        part = body[i : i + 7]
        conn.send(b"%x\r\n%s\r\n" % (len(part), part))
    conn.send(b"0\r\n\r\n")
    resp = conn.getresponse()
    assert resp.status == 200
    assert b"PACK" in resp.read()
    assert hs.counts["gzip"] >= 1 and hs.counts["chunked"] >= 1


def http_conn(hs: HttpGitServer) -> HTTPConnection:
    return HTTPConnection("127.0.0.1", hs.port, timeout=10)


def test_http_goes_down_and_comes_back_on_the_same_port(hs: HttpGitServer, tmp_path: Path) -> None:
    url = hs.url_with_credentials("memory.git")
    git(tmp_path, "ls-remote", url)
    port = hs.port
    idle = http_conn(hs)
    idle.request("GET", "/memory.git/info/refs?service=git-upload-pack")
    idle.getresponse().read()  # a keep-alive connection, open when the server goes down

    hs.go_down()
    down = git(tmp_path, "ls-remote", url, check=False)
    assert down.returncode != 0 and "Failed to connect" in down.stderr
    with pytest.raises((OSError, HTTPException)):
        idle.request("GET", "/memory.git/info/refs?service=git-upload-pack")
        idle.getresponse()

    hs.come_back()
    assert hs.port == port
    git(tmp_path, "ls-remote", url)


def test_http_without_auth_accepts_pushes(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    with http_server(root, require_auth=False) as server:
        clone = tmp_path / "c"
        git(tmp_path, "clone", "-q", server.url("memory.git"), str(clone))
        head = commit_file(clone, "a.md", "a\n")
        git(clone, "push", "-q", "origin", "HEAD:main")
        assert remote_main(root / "memory.git") == head
        assert server.receive_pack_requests == 1


# -- the pre-receive hook and the black hole --------------------------------------------------


def test_refuse_pushes_refuses_exactly_the_next_count(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    repo = bare_repo(root)
    with git_daemon(root) as daemon:
        clone = tmp_path / "c"
        git(tmp_path, "clone", "-q", daemon.url("memory.git"), str(clone))
        head = commit_file(clone, "a.md", "a\n")
        refuse_pushes(repo, "main is protected: open a pull request", count=2)
        for _ in range(2):
            refused = git(clone, "push", "origin", "HEAD:main", check=False)
            assert refused.returncode != 0
            assert "remote: main is protected: open a pull request" in refused.stderr
            assert "pre-receive hook declined" in refused.stderr
            assert remote_main(repo) == ""
        git(clone, "push", "-q", "origin", "HEAD:main")
        assert remote_main(repo) == head


def test_black_hole_accepts_and_never_answers(tmp_path: Path) -> None:
    with black_hole() as port:
        t0 = time.monotonic()
        hung = git(
            tmp_path,
            "-c",
            "http.lowSpeedLimit=1",
            "-c",
            "http.lowSpeedTime=1",
            "ls-remote",
            f"http://127.0.0.1:{port}/memory.git",
            check=False,
        )
        assert hung.returncode != 0 and time.monotonic() - t0 >= 1


# -- ssh: keys, host keys, and what pygit2 (libgit2 + libssh2) does --------------------------


@pytest.fixture
def ssh(tmp_path: Path) -> Iterator[SshServer]:
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


def test_ssh_refuses_an_unknown_key_and_an_unknown_host(ssh: SshServer, tmp_path: Path) -> None:
    url = ssh.url("memory.git")
    stranger = git(
        tmp_path,
        "ls-remote",
        url,
        env={"GIT_SSH_COMMAND": ssh.git_ssh_command(ssh.stranger_key)},
        check=False,
    )
    assert stranger.returncode != 0 and "Permission denied (publickey)" in stranger.stderr
    wrong_host = tmp_path / "other_known_hosts"
    other = Path(f"{ssh.stranger_key}.pub").read_text().split()
    wrong_host.write_text(f"[127.0.0.1]:{ssh.port} {other[0]} {other[1]}\n")
    cmd = ssh.git_ssh_command().replace(str(ssh.known_hosts), str(wrong_host))
    spoofed = git(tmp_path, "ls-remote", url, env={"GIT_SSH_COMMAND": cmd}, check=False)
    assert spoofed.returncode != 0 and "Host key verification failed" in spoofed.stderr


class _SshCallbacks(pygit2.RemoteCallbacks):
    """Key credentials, asked at most twice (libgit2 asks again after each refusal, forever);
    the host is trusted only when libgit2 found its key in <homedir>/.ssh/known_hosts."""

    def __init__(self, key: Path, passphrase: str = "") -> None:
        super().__init__()
        self.key, self.passphrase = key, passphrase
        self.asked = 0
        self.host_checks: list[tuple[bool, bytes]] = []

    def credentials(self, url: str, username: str | None, allowed: int) -> pygit2.Keypair:
        self.asked += 1
        if self.asked > 2:
            raise pygit2.GitError("the ssh key was refused")
        return pygit2.Keypair(username or "", f"{self.key}.pub", str(self.key), self.passphrase)

    def certificate_check(self, certificate: None, valid: bool, host: bytes) -> bool:
        self.host_checks.append((valid, host))
        return valid


@pytest.fixture
def libgit2_home() -> Iterator[None]:
    """settings.homedir is process-wide (libgit2 also reads the global git config there):
    put it back after the test."""
    before = pygit2.settings.homedir
    yield
    if before is not None:
        pygit2.settings.homedir = before


def test_pygit2_clones_and_pushes_over_ssh_with_a_key_and_a_known_host(
    ssh: SshServer, tmp_path: Path, libgit2_home: None
) -> None:
    pygit2.settings.homedir = str(ssh.libgit2_home)
    cb = _SshCallbacks(ssh.client_key)
    repo = pygit2.clone_repository(ssh.url("memory.git"), str(tmp_path / "c"), callbacks=cb)
    assert cb.host_checks == [(True, b"127.0.0.1")]
    sig = pygit2.Signature("p", "p@example.com")
    tb = repo.TreeBuilder()
    tb.insert("a.md", repo.create_blob(b"a\n"), pygit2.enums.FileMode.BLOB)
    oid = repo.create_commit("refs/heads/main", sig, sig, "a", tb.write(), [])
    pushed = _SshCallbacks(ssh.client_key_passphrase_protected, ssh.passphrase)
    repo.remotes["origin"].push(["refs/heads/main:refs/heads/main"], callbacks=pushed)
    assert remote_main(ssh.root / "memory.git") == str(oid)


def test_pygit2_over_ssh_refuses_a_host_key_not_in_known_hosts_and_a_wrong_key(
    ssh: SshServer, tmp_path: Path, libgit2_home: None
) -> None:
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    pygit2.settings.homedir = str(empty_home)
    cb = _SshCallbacks(ssh.client_key)
    with pytest.raises(pygit2.GitError, match="hostkey"):
        pygit2.clone_repository(ssh.url("memory.git"), str(tmp_path / "c"), callbacks=cb)
    assert cb.host_checks == [(False, b"127.0.0.1")] and cb.asked == 0

    pygit2.settings.homedir = str(ssh.libgit2_home)
    stranger = _SshCallbacks(ssh.stranger_key)
    with pytest.raises(pygit2.GitError, match="refused"):
        pygit2.clone_repository(ssh.url("memory.git"), str(tmp_path / "d"), callbacks=stranger)
    assert stranger.asked == 3


def test_pygit2_default_host_check_trusts_any_ssh_host_key(
    ssh: SshServer, tmp_path: Path, libgit2_home: None
) -> None:
    """A hazard for hippo, pinned here: pygit2's default certificate_check (Passthrough) accepts
    an SSH host key that is in no known_hosts file. hippo must override it and return `valid`."""
    empty_home = tmp_path / "empty-home"
    empty_home.mkdir()
    pygit2.settings.homedir = str(empty_home)
    key = ssh.client_key
    callbacks = pygit2.RemoteCallbacks(
        credentials=pygit2.Keypair(ssh.user, f"{key}.pub", str(key), "")
    )
    pygit2.clone_repository(ssh.url("memory.git"), str(tmp_path / "c"), callbacks=callbacks)


def test_the_shared_fixtures_serve_an_empty_memory_repo(
    http_git: HttpGitServer, git_daemon_server: GitDaemon, ssh_git: SshServer, tmp_path: Path
) -> None:
    for url, env in (
        (http_git.url_with_credentials("memory.git"), {}),
        (git_daemon_server.url("memory.git"), {}),
        (ssh_git.url("memory.git"), {"GIT_SSH_COMMAND": ssh_git.git_ssh_command()}),
    ):
        assert git(tmp_path, "ls-remote", url, env=env).stdout == ""


def test_git_daemon_goes_down_and_comes_back_on_the_same_port(tmp_path: Path) -> None:
    root = tmp_path / "srv"
    root.mkdir()
    bare_repo(root)
    with git_daemon(root) as daemon:
        url, port = daemon.url("memory.git"), daemon.port
        git(tmp_path, "ls-remote", url)
        daemon.go_down()
        down = git(tmp_path, "ls-remote", url, check=False)
        assert down.returncode != 0 and "unable to connect" in down.stderr
        assert processes_mentioning(str(root)) == []
        daemon.come_back()
        assert daemon.port == port
        git(tmp_path, "ls-remote", url)
