"""Save N notes from P processes × T writer threads into one workspace, verify the remote, and
run the same workload through the git CLI against the same kind of remote in the same run.

    .venv/bin/python bench/notes.py [--remote local|http|git] [--notes N] [--git-notes N]
                                    [--git-writers N] [--no-http-auth] [--processes P]
                                    [--threads T] [--latency MS] [--no-alone] [--shared-data]
                                    [--redis URL]

--remote local: a bare repository on disk; http: git's own `git http-backend` behind the threaded
loopback server of tests/gitservers (smart HTTP, as GitHub/GitLab speak it); git: `git daemon`.
hippo: P × T (4 × 10 by default; each process with its own cache, as web and worker have), each
note through `memory.notes.save_note`; a process waiting for the writer lock hands its writes to
the holder (memory/git/handoff.py), and a second run (--no-alone skips it) batches each process's
own writers only. The clock starts once every process has opened its store and fetched.
--latency MS: the HTTP server waits MS before answering each request (a slow git host).
--redis URL: the writer lock and the hand-off in that Redis, as hosts sharing a REDIS_URL have them
(jobs/handoff.py); without it, a file lock and a folder on this host.
git CLI: N writers, each with its own clone: append, commit, push; on rejection pull (merge,
union for inbox.md) and push again; and one writer alone. The remote is verified from the
server's bare repository: every note claimed saved is on main exactly once (lost / duplicated),
hippo made one commit per note, `git fsck --strict` is clean. A note whose save raised is
counted as failed (not claimed saved), not as lost. CPU: see the legend printed under the table.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from jobs.handoff import RedisHandoff
from memory import notes
from memory.format import lines as textlines
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from tests.gitservers import GitDaemon, HttpGitServer, bare_repo, git_daemon, http_server

PROCESSES, THREADS = 4, 10
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


def _open_store(
    remote: str, cache: Path, auth: bool, handoff: bool = True, redis_url: str = ""
) -> Store:
    creds = RemoteAuth(username=USER, token=PASSWORD) if auth else None
    if redis_url:  # as jobs/runtime.py opens it with a shared REDIS_URL: hosts sharing a Redis
        client = redis.Redis.from_url(redis_url)
        shared = RedisHandoff(client, "default")
        store = Store.open(remote, cache, auth=creds, redis=client, handoff=shared)
    else:
        store = Store.open(remote, cache, auth=creds)
    if not handoff:
        store.writer.handoff = None
    return store


# -- hippo: P processes × T threads -----------------------------------------------------------


def _producer_process(
    remote: str,
    auth: bool,
    cache: str,
    start: int,
    count: int,
    threads: int,
    handoff: bool,
    redis_url: str,
    q: mp.Queue,  # type: ignore[type-arg]
    ready: Any,  # a multiprocessing Barrier: every process opened its store
) -> None:
    # Opened and fetched before the clock starts, as a running web or worker process is: the
    # rate is of writes, not of four Python start-ups (about 3 s of a 400-note run).
    store = _open_store(remote, Path(cache), auth, handoff, redis_url)
    store.files()
    latencies: list[float] = []
    failures: list[str] = []
    lock = threading.Lock()

    def produce(ids: range) -> None:
        for i in ids:
            t0 = time.perf_counter()
            try:
                notes.save_note(
                    store,
                    f"bench note {i:06d} about the nightly batch",
                    today="2026-11-30",
                    author=Author("bench", "bench@example.com"),
                    key=f"bench-{i}",
                )
            except Exception as e:  # a failed save is reported, not claimed saved
                with lock:
                    failures.append(f"{i}: {type(e).__name__}: {e}")
                continue
            with lock:
                latencies.append(time.perf_counter() - t0)

    per = count // threads
    ths = [
        threading.Thread(target=produce, args=(range(start + k * per, start + (k + 1) * per),))
        for k in range(threads)
    ]
    ready.wait()
    cpu0 = time.process_time()
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    q.put((latencies, failures, time.process_time() - cpu0, time.process_time()))


def _cpu() -> float:
    """CPU seconds of this process and every child it reaped (the server's CGI runs, the git
    CLI's commands, the producers once joined)."""
    own, kids = (resource.getrusage(w) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def bench_hippo(
    served: Served, root: Path, n: int, shape: tuple[int, int], *, shared: bool, handoff: bool
) -> dict[str, Any]:
    processes, threads = shape
    name = f"hippo-{processes}x{threads}{'' if handoff else '-alone'}"
    remote = served.repo(f"{name}.git")
    _open_store(remote.hippo_url, root / f"{name}-init", remote.auth).init()
    ctx = mp.get_context("spawn")
    q: mp.Queue = ctx.Queue()  # type: ignore[type-arg]
    ready = ctx.Barrier(processes + 1)
    per_proc = n // processes
    cache = root / f"{name}-cache"
    procs = [
        ctx.Process(
            target=_producer_process,
            args=(
                remote.hippo_url,
                remote.auth,
                str(cache / ("shared" if shared else str(p))),
                p * per_proc,
                per_proc,
                threads,
                handoff,
                served.redis_url,
                q,
                ready,
            ),
        )
        for p in range(processes)
    ]
    started = time.perf_counter()
    for p in procs:
        p.start()
    ready.wait()
    (pushes0, fetches0), cpu0 = served.served(), _cpu()
    t0 = time.perf_counter()
    latencies: list[float] = []
    failures: list[str] = []
    hippo_cpu = lifetime_cpu = 0.0
    for _ in procs:
        lat, fail, cpu, lifetime = q.get()
        latencies.extend(lat)
        failures.extend(fail)
        hippo_cpu += cpu
        lifetime_cpu += lifetime
    elapsed = time.perf_counter() - t0
    for p in procs:
        p.join()
    # What the producers did not spend themselves (their whole lives count as reaped children)
    # is the server's: its threads and its CGI runs.
    server_cpu = _cpu() - cpu0 - lifetime_cpu
    pushes, fetches = map(int.__sub__, served.served(), (pushes0, fetches0))
    r = _verify(remote.path, n, elapsed, latencies, failures, pushes)
    r.update(startup=t0 - started, cpu_hippo=hippo_cpu, cpu_server=server_cpu, fetches=fetches)
    return r


# -- the git CLI: N clones with pull-and-retry, or one writer ----------------------------------


def _git(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = os.environ | {"GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(
        ["git", "-c", "gc.auto=0", *args], cwd=cwd, capture_output=True, text=True, env=env
    )


def bench_git(served: Served, root: Path, n: int, producers: int) -> dict[str, Any]:
    remote = served.repo(f"git-remote-{producers}.git")
    # the same layout (.gitattributes: union merge for inbox.md) written by hippo
    _open_store(remote.hippo_url, root / f"git-init-{producers}", remote.auth).init()
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

    t0, cpu0 = time.perf_counter(), _cpu()
    ths = [threading.Thread(target=produce, args=(k,)) for k in range(producers)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    elapsed = time.perf_counter() - t0
    r = _verify(remote.path, per * producers, elapsed, latencies, [], served.served()[0] - pushes0)
    r.update(cpu_hippo=0.0, cpu_server=_cpu() - cpu0)  # git's commands and the server's
    return r


# -- verification, from the server's bare repository ------------------------------------------


def _verify(
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


def _args() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--remote", choices=("local", "http", "git"), default="local")
    ap.add_argument("--notes", type=int, default=None, help="hippo notes (2000 local, 400 network)")
    ap.add_argument("--git-notes", type=int, default=None, help="git CLI notes per run (300 / 60)")
    ap.add_argument("--git-writers", type=int, default=None, help="git CLI clones (20/10; 0: none)")
    ap.add_argument("--processes", type=int, default=PROCESSES, help="hippo processes (4)")
    ap.add_argument("--threads", type=int, default=THREADS, help="writers per process (10)")
    ap.add_argument("--latency", type=float, default=0.0, help="ms added to each HTTP request")
    off = {"action": "store_false"}
    ap.add_argument("--no-alone", dest="alone", help="skip the run without hand-off", **off)
    ap.add_argument("--shared-data", action="store_true", help="one data folder for all")
    ap.add_argument("--no-http-auth", dest="http_auth", help="serve http without auth", **off)
    ap.add_argument("--redis", default="", help="a Redis URL: the lock and hand-off of hosts")
    return ap.parse_args()


def _print(rows: list[tuple[str, dict[str, Any]]], local: bool) -> None:
    print(
        f"{'':38}{'notes':>7}{'notes/s':>10}{'p50 ms':>9}{'p99 ms':>9}"
        f"{'lost':>6}{'dup':>6}{'failed':>8}{'commits':>9}{'pushes':>8}"
        f"{'CPU ms/note':>12}{'(hippo)':>8}{'fetches':>8}  fsck"
    )
    for name, r in rows:
        pushes = f"{r['pushes']:>8}" if not local else f"{'-':>8}"
        per = 1000 / max(1, r["notes"] - r["failed"])
        own = f"{r['cpu_hippo'] * per:>8.1f}" if r["cpu_hippo"] else f"{'-':>8}"
        print(
            f"{name:38}{r['notes']:>7}{r['notes_per_s']:>10.1f}{r['p50_ms']:>9.1f}"
            f"{r['p99_ms']:>9.1f}{r['lost']:>6}{r['duplicated']:>6}{r['failed']:>8}"
            f"{r['commits']:>9}{pushes}{(r['cpu_hippo'] + r['cpu_server']) * per:>12.1f}{own}"
            f"{r.get('fetches', '-') if not local else '-':>8}"
            f"  {r['fsck']}"
        )


def main() -> int:
    args = _args()
    local = args.remote == "local"
    n = args.notes or (2000 if local else 400)
    git_n = args.git_notes or (300 if local else 60)
    writers = (20 if local else 10) if args.git_writers is None else args.git_writers
    shape = (args.processes, args.threads)
    label = f"{args.processes} proc × {args.threads} thr"
    rows: list[tuple[str, dict[str, Any]]] = []
    with tempfile.TemporaryDirectory() as tmp, serve(args.remote, Path(tmp), args.http_auth) as s:
        root = Path(tmp)
        if isinstance(s.server, HttpGitServer):
            s.server.delay = args.latency / 1000
        s.redis_url = args.redis
        h = bench_hippo(s, root, n, shape, shared=args.shared_data, handoff=True)
        rows.append((f"hippo ({label})", h))
        if args.alone:
            alone = bench_hippo(s, root, n, shape, shared=args.shared_data, handoff=False)
            rows.append((f"hippo, no hand-off ({label})", alone))
        if writers:
            rows.append((f"git CLI ({writers} clones)", bench_git(s, root, git_n, writers)))
        g1 = bench_git(s, root, git_n, 1)
        rows.append(("git CLI (1 writer)", g1))
    where = {"local": "a local bare remote", "http": "loopback smart HTTP", "git": "git daemon"}
    slow = f", {args.latency:.0f} ms added per request" if args.latency else ""
    lock = f"; lock and hand-off in Redis ({args.redis})" if args.redis else ""
    print(
        f"remote: {where[args.remote]}" + (" (basic auth)" if args.http_auth else "") + slow + lock
    )
    print(f"load average {os.getloadavg()[0]:.1f} (1 min) at the end of the run")
    _print(rows, local)
    print(
        "CPU ms/note: every process of the run (hippo's or git's, and the server's CGI runs) "
        "per note saved; (hippo): the hippo processes' share. hippo's processes were opened "
        "and had fetched before the clock started ("
        + ", ".join(f"{r['startup']:.1f} s" for _, r in rows if "startup" in r)
        + ")"
    )
    if not local:
        print(
            "pushes: receive-pack requests the server served (http: pack POSTs; git daemon: "
            "receive-pack connections, including those a client drops after seeing the refs); "
            "fetches: upload-pack ref advertisements over http while the clock ran (git's pulls too)"
        )
    ok = True
    for name, r in rows[: 2 if args.alone else 1]:
        one_per_note = r["commits"] == r["notes"] - r["failed"]
        print(
            f"{name}: {r['notes_per_s'] / g1['notes_per_s']:.1f}x one git CLI writer; "
            f"commits {r['commits']} ({'one per note' if one_per_note else 'NOT one per note'})"
            + (f"; first failed save: {r['first_failure'][:300]}" if r["first_failure"] else "")
        )
        ok = ok and r["lost"] == r["duplicated"] == r["failed"] == 0 and one_per_note
        ok = ok and r["fsck"] == "clean"
    print("target (4 proc × 10 thr over HTTP): ≥ 100 notes/s and ≥ 10x one git CLI writer")
    if not ok:
        print("FAILED: hippo lost, duplicated or failed notes, or the remote is not clean")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
