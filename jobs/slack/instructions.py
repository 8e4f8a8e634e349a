"""Celery tasks for instructions: preferences/channels/<channel-name>.md, or with `repo`
preferences/repos/<owner>/<repo>.md (memory/repo_prefs.py); one commit each.

Same context and idempotency rules as jobs/slack/tasks.py (the key is the event or command id).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from celery import Task

from jobs.celery_app import task, task_runtime
from jobs.runtime import Runtime
from jobs.slack.tasks import RETRY, author, file_link, reply_once, source_for, today
from memory import format as fmt
from memory import repo_prefs
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.ops import AddEntry, RemoveEntry

# channel id → name, recorded by the front doors from requests that carry it (slash commands,
# shortcuts), so a mention (which carries only the id) finds the same file, even offline.
CHANNEL_NAMES = "hippo:slack:channel-names"
_NOT_NAMES = ("", "privategroup", "directmessage")  # what slash commands send for those


def remember_channel_name(rt: Runtime, channel: str, name: str) -> None:
    if channel and name not in _NOT_NAMES:
        rt.redis.hset(CHANNEL_NAMES, channel, name)


def channel_slug(rt: Runtime, channel: str, name: str = "") -> str:
    """The channel's file name: its Slack name (request, names seen, the API), else its id."""
    if name in _NOT_NAMES:
        seen = rt.redis.hget(CHANNEL_NAMES, channel)
        name = seen.decode() if isinstance(seen, bytes) else ""
    name = (name or rt.poster.channel_name(channel) or channel).lstrip("#").lower()
    slug = re.sub(r"[^a-z0-9_.-]+", "-", name).strip("-.")
    return slug or channel.lower()


def path_for(slug: str) -> str:
    return f"preferences/channels/{slug}.md"


@dataclass(frozen=True)
class Target:
    """Where instructions go: a channel's preferences, or a repository's."""

    path: str
    label: str  # '#team-payments' or 'acme/shop'
    title: str
    short: str  # '#team-payments' or 'acme/shop' in commit messages


def target(rt: Runtime, channel: str, ctx: dict[str, Any]) -> Target:
    """The repository's file when the request named one (BadRepo when the name is not one),
    else the channel's."""
    repo = str(ctx.get("repo") or "")
    if repo:
        name = repo_prefs.check_repo(repo)
        return Target(repo_prefs.path_for(name), name, repo_prefs.title_for(name), name)
    slug = channel_slug(rt, channel, ctx.get("channel_name", ""))
    return Target(path_for(slug), f"#{slug}", f"Channel #{slug}: how to behave here", f"#{slug}")


def _entries(rt: Runtime, path: str) -> list[fmt.Entry]:
    text = rt.store.read_or_none(path) if rt.store.tip() else None
    return list(fmt.parse(text).entries) if text else []


@task("hippo.slack.instructions_add", **RETRY)
def instructions_add(
    self: Task, *, key: str, channel: str, ts: str, user: str, text: str, **ctx: Any
) -> None:
    """Add one instruction for this channel (or the repository named) and confirm it."""
    rt = task_runtime()
    note = " ".join(text.split())
    try:
        to = target(rt, channel, ctx)
        if not note:
            reply = "Which instruction? Say `@hippo in this channel, <instruction>`."
        else:
            meta = (("source", source_for(rt, channel, ts)), ("added", today(rt)), ("by", user))
            rt.store.write(
                [AddEntry(to.path, note, meta, title=to.title)],
                author=author(user),
                message=f"instructions {to.short}: {note[:60]}",
                key=key,
            )
            reply = f"Noted for {to.label}: “{note}” ({file_link(rt, to.path)})."
    except (RemoteError, LockTimeout):
        raise
    except MemoryStoreError as exc:
        reply = f"Not saved: {exc}."
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


@task("hippo.slack.instructions_list", **RETRY)
def instructions_list(self: Task, *, key: str, channel: str, **ctx: Any) -> None:
    """List this channel's (or the repository's) instructions, numbered as `remove N` expects."""
    rt = task_runtime()
    try:
        to = target(rt, channel, ctx)
    except repo_prefs.BadRepo as exc:
        reply_once(rt, self, key, channel, f"{exc}.", thread_ts=ctx.get("thread_ts"))
        return
    entries = _entries(rt, to.path)
    if not entries:
        how = f"--repo {to.label} " if ctx.get("repo") else ""
        reply = (
            f"No instructions for {to.label} yet. Add one: `/hippo instructions add {how}<text>`."
        )
    else:
        lines = [f"{i}. {e.text}" for i, e in enumerate(entries, 1)]
        reply = f"Instructions for {to.label} ({file_link(rt, to.path)}):\n" + "\n".join(lines)
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


@task("hippo.slack.instructions_remove", **RETRY)
def instructions_remove(
    self: Task, *, key: str, channel: str, user: str, number: str, **ctx: Any
) -> None:
    """Remove instruction N (as numbered by the list) and confirm."""
    rt = task_runtime()
    try:
        to = target(rt, channel, ctx)
    except repo_prefs.BadRepo as exc:
        reply_once(rt, self, key, channel, f"{exc}.", thread_ts=ctx.get("thread_ts"))
        return
    entries = _entries(rt, to.path)
    n = int(number) if number.isdigit() else 0
    if rt.store.find_key(key):
        reply = f"Removed instruction {number} from {to.label}."  # a rerun: it landed already
    elif not 1 <= n <= len(entries):
        how = f" --repo {to.label}" if ctx.get("repo") else ""
        reply = (
            f"There is no instruction {number!r} for {to.label} (it has {len(entries)}); "
            f"`/hippo instructions{how}` lists them with their numbers."
        )
    else:
        gone = entries[n - 1]
        try:
            rt.store.write(
                [RemoveEntry(to.path, gone.text)],
                author=author(user),
                message=f"instructions {to.short}: remove {gone.text[:60]}",
                key=key,
            )
            reply = f"Removed instruction {n} from {to.label}: “{gone.text}”."
        except (RemoteError, LockTimeout):
            raise
        except MemoryStoreError as exc:
            reply = f"Not removed: {exc}."
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))
