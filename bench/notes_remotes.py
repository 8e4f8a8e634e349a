"""bench/notes.py's remotes and its baseline: the kind of remote a run writes to (a local bare
repository, loopback smart HTTP with basic auth, git daemon), the same workload through the git
CLI (N clones with pull-and-retry, or one writer), and the verification of a run from the
server's bare repository (lost, duplicated, one commit per note, `git fsck --strict`).
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory.format import lines as textlines
from memory.git import Store
from memory.git.credentials import RemoteAuth
from tests.gitservers import GitDaemon, HttpGitServer, bare_repo, git_daemon, http_server

USER, PASSWORD = "hippo", "s3cret"


@dataclass
class Remote:
    """Where one run's bare repository is: the URL hippo opens, the URL the git CLI uses (with
    the credentials in it, as a person would configure it), and the bare repo on disk."""

    hippo_url: str
    git_url: str
    path: Path
    auth: bool = False


class Served:
    """The remote kind for this run: hands out one bare repository per workload."""

    def __init__(self, kind: str, root: Path, server: HttpGitServer | GitDaemon | None) -> None:
        self.kind, self.root, self.server = kind, root, server
        self.redis_url = ""  # --redis: every process's lock and hand-off in that Redis

    def repo(self, name: str) -> Remote:
        path = self.root / name
        if isinstance(self.server, HttpGitServer):
            bare_repo(self.root, name)
            auth = self.server.require_auth
            git_url = self.server.url_with_credentials(name) if auth else self.server.url(name)
            return Remote(self.server.url(name), git_url, path, auth)
        if isinstance(self.server, GitDaemon):
            bare_repo(self.root, name)
            return Remote(self.server.url(name), self.server.url(name), path)
        return Remote(str(path), str(path), path)  # local: Store.init creates it

    def served(self) -> tuple[int, int]:
        """receive-pack requests served so far (one per push that reached the server) and, over
        http, upload-pack ref advertisements (every fetch starts with one)."""
        seen = self.server.counts if self.server is not None else {}
        return seen.get("receive_pack", 0), seen.get("upload_pack_refs", 0)


@contextmanager
def serve(kind: str, root: Path, http_auth: bool) -> Iterator[Served]:
    srv = root / "srv"
    srv.mkdir()
    if kind == "http":
        with http_server(srv, USER, PASSWORD, require_auth=http_auth) as server:
            yield Served(kind, srv, server)
    elif kind == "git":
        with git_daemon(srv) as daemon:
            yield Served(kind, srv, daemon)
    else:
        yield Served(kind, srv, None)


def cpu_seconds() -> float:
    """CPU seconds of this process and every child it reaped (the server's CGI runs, the git
    CLI's commands, the producers once joined)."""
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


# -- the git CLI: N clones with pull-and-retry, or one writer ----------------------------------


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        ["git", "-c", "gc.auto=0", *args], cwd=cwd, capture_output=True, text=True, env=env
    )


def bench_git(served: Served, root: Path, n: int, producers: int) -> dict[str, Any]:
    remote = served.repo(f"git-remote-{producers}.git")
    # the same layout (.gitattributes: union merge for inbox.md) written by hippo
    creds = RemoteAuth(username=USER, token=PASSWORD) if remote.auth else None
    Store.open(remote.hippo_url, root / f"git-init-{producers}", auth=creds).init()
    clones = []
    for k in range(producers):
        c = root / f"clone-{producers}-{k}"
        _git(root, "clone", "-q", remote.git_url, str(c))
        _git(c, "config", "user.name", "bench")
        _git(c, "config", "user.email", "bench@example.com")
        clones.append(c)
    latencies: list[float] = []
    lock = threading.Lock()
    per = n // producers
    pushes0 = served.served()[0]

    def produce(k: int) -> None:
        c = clones[k]
        for j in range(per):
            i = k * per + j
            t0 = time.perf_counter()
            with (c / "inbox.md").open("a") as f:
                f.write(f"- bench note {i:06d} about the nightly batch [added: 2026-11-30]\n")
            _git(c, "commit", "-qam", f"note {i}")
            while _git(c, "push", "-q", "origin", "HEAD:main").returncode != 0:
                _git(c, "pull", "-q", "--no-rebase", "--no-edit", "origin", "main")
            with lock:
                latencies.append(time.perf_counter() - t0)

    t0, cpu0 = time.perf_counter(), cpu_seconds()
    ths = [threading.Thread(target=produce, args=(k,)) for k in range(producers)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    elapsed = time.perf_counter() - t0
    r = verify(remote.path, per * producers, elapsed, latencies, [], served.served()[0] - pushes0)
    r.update(cpu_hippo=0.0, cpu_server=cpu_seconds() - cpu0)  # git's commands and the server's
    return r


# -- verification, from the server's bare repository ------------------------------------------


def verify(
    repo: Path, n: int, elapsed: float, lat: list[float], failures: list[str], pushes: int
) -> dict[str, Any]:
    """Every note claimed saved is on main exactly once; commits since init; fsck --strict."""
    grep = _git(repo, "--git-dir", str(repo), "grep", "-h", "^- bench note", "main", "--")
    ids = [x.split()[3] for x in textlines.split(grep.stdout)]
    failed = {f.split(":", 1)[0] for f in failures}
    claimed = {f"{i:06d}" for i in range(n) if str(i) not in failed}
    commits = int(_git(repo, "--git-dir", str(repo), "rev-list", "--count", "main").stdout or 0)
    fsck = _git(repo, "--git-dir", str(repo), "fsck", "--strict", "--no-progress")
    lat_ms = sorted(x * 1000 for x in lat) or [0.0]
    return {
        "notes": n,
        "seconds": elapsed,
        "notes_per_s": (n - len(failed)) / elapsed,
        "p50_ms": statistics.median(lat_ms),
        "p99_ms": lat_ms[min(len(lat_ms) - 1, int(len(lat_ms) * 0.99))],
        "lost": len(claimed - set(ids)),
        "duplicated": len(ids) - len(set(ids)),
        "failed": len(failed),
        "first_failure": failures[0] if failures else "",
        "commits": commits - 1,  # the init commit
        "pushes": pushes,
        "fsck": "clean" if fsck.returncode == 0 else (fsck.stderr or fsck.stdout).strip()[:300],
    }
