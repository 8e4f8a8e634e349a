"""`hippo doctor` (can hippo reach, read and push the memory remote?) and `hippo maintenance`
(repack and prune the cache and a local remote)."""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.cli.output import progress
from jobs.config import ConfigError
from memory.errors import MemoryStoreError

if TYPE_CHECKING:  # the store (pygit2) loads when a command runs, not for --help
    from jobs.runtime import Runtime
    from memory.git import Store

Sub = Any


def _check(name: str, fn: Callable[[], str]) -> dict[str, Any]:
    t0 = time.perf_counter()
    try:
        detail, ok = fn(), True
    except (MemoryStoreError, ConfigError, OSError) as exc:
        detail, ok = str(exc), False
    return {
        "check": name,
        "ok": ok,
        "detail": detail,
        "ms": round(1000 * (time.perf_counter() - t0)),
    }


def cmd_doctor(args: argparse.Namespace, rt: Runtime) -> int:
    from jobs.memory_auth import method  # PyGithub, for GitHub App credentials
    from memory.git.credentials import is_ssh, redact

    config = rt.config
    results: list[dict[str, Any]] = []
    remote = config.remote
    auth = method(config)

    def configured() -> str:
        if is_ssh(remote) and not (config.memory_known_hosts or config.memory_ssh_insecure):
            raise ConfigError("SSH remote without HIPPO_MEMORY_KNOWN_HOSTS")
        extra = " (HIPPO_MEMORY_SSH_INSECURE: any host key is trusted)"
        return f"auth: {auth}" + (extra if config.memory_ssh_insecure else "")

    results.append(_check("settings", configured))
    if results[-1]["ok"]:
        for name, fn in _remote_checks(rt.store):
            results.append(_check(name, fn))
            if not results[-1]["ok"]:
                break
    ok = all(r["ok"] for r in results)
    shown = rt.store.shown if results[0]["ok"] else redact(remote)
    if args.json:
        print(json.dumps({"remote": shown, "ok": ok, "checks": results}, indent=2))
    else:
        print(f"memory remote: {shown}")
        for r in results:
            mark = "ok  " if r["ok"] else "FAIL"
            print(f"  {mark} {r['check']:<9} {r['detail']} ({r['ms']} ms)")
        print("all good" if ok else "hippo cannot use this remote yet: fix the FAIL line above")
    return 0 if ok else 1


def _remote_checks(store: Store) -> list[tuple[str, Callable[[], str]]]:
    """Reach, fetch and push, in order: each only means something once the one before passed."""
    from memory.git import BRANCH
    from memory.git.maintenance import check_push

    def reach() -> str:
        heads = [h for h in store.heads() if h.startswith("refs/heads/")]
        return f"{len(heads)} branch(es)" if heads else "reachable, empty"

    def fetch() -> str:
        tip = store.sync()
        if tip is None:
            return f"no {BRANCH} yet: run `hippo init`"
        if store.read_or_none("MEMORY.md", tip) is None:
            raise ConfigError(f"{BRANCH} has no MEMORY.md: not a memory repository")
        return f"{BRANCH} at {tip[:8]}"

    def push() -> str:
        if store.tip() is None:
            return "skipped: the repository is empty (`hippo init` pushes the first commit)"
        check_push(store)
        return "created and deleted a check ref under refs/hippo/"

    return [("reach", reach), ("fetch", fetch), ("push", push)]


def cmd_maintenance(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.git import is_local
    from memory.git.maintenance import maintain

    rt.store.sync()
    with progress("repacking", total=2 if is_local(rt.store.remote) else 1) as advance:
        done = maintain(rt.store, only_if_needed=args.if_needed, progress=advance)
    rows = [
        {
            "path": d.path,
            "bytes_before": d.bytes_before,
            "bytes_after": d.bytes_after,
            "loose_before": d.loose_before,
            "loose_after": d.loose_after,
            "seconds": round(d.seconds, 2),
        }
        for d in done
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("nothing to do")
    for d in done:
        kind = "cache" if d.path == str(rt.store.cache) else "local remote"
        print(
            f"{kind} {d.path}: {d.bytes_before / 1e6:.1f} MB → {d.bytes_after / 1e6:.1f} MB, "
            f"{d.loose_before} → {d.loose_after} loose objects in {d.seconds:.2f} s"
        )
    return 0


def add_commands(sub: Sub) -> None:
    p = sub.add_parser(
        "doctor", help="check the memory remote: settings, reach, fetch, push permission"
    )
    p.add_argument("--json", action="store_true", help="print the checks as JSON")
    p.set_defaults(func=cmd_doctor)

    p = sub.add_parser("maintenance", help="repack and prune the cache (and a local remote)")
    p.add_argument("--if-needed", action="store_true", help="only past git's gc.auto threshold")
    p.add_argument("--json", action="store_true", help="print what was repacked as JSON")
    p.set_defaults(func=cmd_maintenance)
