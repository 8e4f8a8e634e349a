"""Repack and prune: every note adds loose objects to the cache (and to a local remote), which
slows fetches and wastes disk. git's own commands do the work (local I/O only); hippo runs them
under the workspace lock so no write of ours is mid-flight, weekly from beat and after a dream
that left many loose objects (git's own `gc.auto` estimate).
"""

from __future__ import annotations

import os
import subprocess
import time
import uuid
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from memory.errors import RemoteError

if TYPE_CHECKING:
    from memory.git.store import Store

LOOSE_LIMIT = 6700  # git's gc.auto default: repack past about this many loose objects
PRUNE_EXPIRE = "1.hour.ago"  # unreachable objects younger than this may belong to a push


@dataclass(frozen=True)
class Repacked:
    path: str
    bytes_before: int
    bytes_after: int
    loose_before: int
    loose_after: int
    seconds: float


def loose_estimate(repo: Path) -> int:
    """Loose objects, estimated like `git gc --auto` does: one fan-out folder × 256."""
    folder = repo / "objects" / "17"
    try:
        return len(os.listdir(folder)) * 256
    except FileNotFoundError:
        return 0


def needs_maintenance(repo: Path) -> bool:
    return loose_estimate(repo) > LOOSE_LIMIT


def disk_bytes(repo: Path) -> int:
    total = 0
    for root, _dirs, files in os.walk(repo):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except FileNotFoundError:
                continue  # removed while we walked
    return total


def _loose_count(repo: Path) -> int:
    objects = repo / "objects"
    count = 0
    for entry in objects.iterdir() if objects.exists() else ():
        if len(entry.name) == 2 and entry.is_dir():
            count += len(os.listdir(entry))
    return count


def repack(repo: Path) -> Repacked:
    """Pack refs and objects into one pack (with a bitmap, so serving fetches is cheap) and
    prune unreachable loose objects older than an hour. The caller holds the workspace lock."""
    t0 = time.perf_counter()
    before, loose = disk_bytes(repo), _loose_count(repo)
    for args in (
        ["pack-refs", "--all"],
        ["repack", "-a", "-d", "-q", "--write-bitmap-index"],
        ["prune", f"--expire={PRUNE_EXPIRE}"],
    ):
        done = subprocess.run(
            ["git", "-C", str(repo), *args], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise OSError(f"git {args[0]} failed in {repo}: {done.stderr.strip()[:300]}")
    return Repacked(
        str(repo),
        before,
        disk_bytes(repo),
        loose,
        _loose_count(repo),
        time.perf_counter() - t0,
    )


def maintain(
    store: Store, *, only_if_needed: bool = False, progress: Callable[[str], None] | None = None
) -> list[Repacked]:
    """Repack the store's cache (and a local remote) under the workspace lock. With
    `only_if_needed`, only repositories past git's gc.auto."""
    targets = [store.cache]
    local = store.transport.local_path()
    if local is not None:
        targets.append(local)
    if only_if_needed:
        targets = [t for t in targets if needs_maintenance(t)]
    done: list[Repacked] = []
    if not targets:
        return done
    with store.lock, store.mirror.fetch_lock:
        for target in targets:
            try:
                done.append(repack(target))
            except OSError as exc:
                raise RemoteError(f"maintenance failed: {exc}") from exc
            if progress is not None:
                progress(target.name)
        store.mirror.close()
    return done


def check_push(store: Store) -> None:
    """Prove hippo may push: create and delete refs/hippo/check/<id> at the tip (no new
    objects, nothing on the branch). Raises the named error a real write would."""
    tip = store.head()
    name = f"check/{uuid.uuid4().hex[:12]}"
    if not store.publish(name, tip, create=True):
        raise RemoteError(f"{store.shown} refused a check ref under refs/hippo/")
    refname = f"refs/hippo/{name}"
    repo = store.mirror.repo
    store.transport.delete_ref(repo, refname)
    with suppress(KeyError):
        repo.references.delete(refname)
