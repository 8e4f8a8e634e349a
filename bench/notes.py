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
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.notes_remotes import PASSWORD, USER, Served, bench_git, cpu_seconds, serve, verify
from jobs.handoff import RedisHandoff
from memory import notes
from memory.git import Author, Store
from memory.git.credentials import RemoteAuth
from tests.gitservers import HttpGitServer

PROCESSES, THREADS = 4, 10


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
    (pushes0, fetches0), cpu0 = served.served(), cpu_seconds()
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
    server_cpu = cpu_seconds() - cpu0 - lifetime_cpu
    pushes, fetches = map(int.__sub__, served.served(), (pushes0, fetches0))
    r = verify(remote.path, n, elapsed, latencies, failures, pushes)
    r.update(startup=t0 - started, cpu_hippo=hippo_cpu, cpu_server=server_cpu, fetches=fetches)
    return r


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
