"""A push to the memory repository seen on GitHub: publish the prompt snapshot now.

An edit of `MEMORY.md` or a daily note pushed with plain git passes none of hippo's write paths,
which publish snapshots for their own edits. A new thread's first turn publishes it when it
fetches (memory/prompts/snapshot.py, `current`); when the memory repository is on GitHub and the
GitHub App's webhook is sent its `push` events, the push itself queues `memory_pushed`, which
fetches and publishes at once, so even the next thread's first turn finds it published.
"""

from __future__ import annotations

import logging
import re
from urllib.parse import urlsplit

from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import MemoryPushed
from memory.git import BRANCH
from memory.prompts import snapshot

log = logging.getLogger("hippo.snapshots")

_SCP = re.compile(r"^(?:[^@/]+@)?(?P<host>[^:/]+):(?P<path>[^/].*)$")  # git@github.com:o/n.git


def where(url: str) -> str:
    """A git URL as `host/path` (no scheme, user, port 22/443, `.git` or trailing '/'; case
    folded): the https, ssh and scp-like spellings of one repository compare equal."""
    url = url.strip()
    scp = None if "://" in url else _SCP.match(url)
    if scp is not None:
        host, path = scp["host"], scp["path"]
    else:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if parts.port and parts.port not in (22, 443, 80, 9418):
            host = f"{host}:{parts.port}"
        path = parts.path
    path = path.strip("/").removesuffix(".git").strip("/")
    return f"{host}/{path}".lower()


def is_memory_push(remote: str, ref: str, urls: list[str]) -> bool:
    """A push event's branch and repository URLs name the memory remote's branch."""
    if ref != f"refs/heads/{BRANCH}":
        return False
    if "://" not in remote and _SCP.match(remote) is None:
        return False  # a local path is never on GitHub
    return where(remote) in {where(u) for u in urls if u}


@task(MemoryPushed.TASK)
def memory_pushed(self: HippoTask, *, after: str = "") -> int | None:
    """Fetch, and publish the tip when someone else's commit changed a snapshot file; the
    version published, or None (nothing of the snapshot changed, or hippo pushed it)."""
    rt = self.runtime
    rt.store.sync()
    published = snapshot.publish_if_pushed(rt.store)
    if published is not None:
        log.info("published snapshot %d for a push to %s", published.version, after[:8] or "?")
    return published.version if published else None


def register(app: HippoCelery) -> None:
    app.add_tasks(memory_pushed)
