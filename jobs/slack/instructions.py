"""Celery tasks for channel instructions: preferences/channels/<channel-name>.md, one commit each.

Same context and idempotency rules as jobs/slack/tasks.py (the key is the event or command id).
"""

from __future__ import annotations

from typing import Any

from jobs.config import today
from jobs.runtime import Runtime
from jobs.slack.channels import channel_slug
from jobs.slack.messages import file_link
from jobs.slack.replies import RETRY, author, reply_once, source_for, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from memory import format as fmt
from memory.ops import AddEntry, RemoveEntry

INSTRUCTIONS_ADD = "hippo.slack.instructions_add"
INSTRUCTIONS_LIST = "hippo.slack.instructions_list"
INSTRUCTIONS_REMOVE = "hippo.slack.instructions_remove"


def path_for(slug: str) -> str:
    return f"preferences/channels/{slug}.md"


def _entries(rt: Runtime, path: str) -> list[fmt.Entry]:
    text = rt.store.read_or_none(path) if rt.store.tip() else None
    return list(fmt.parse(text).entries) if text else []


@task(INSTRUCTIONS_ADD, **RETRY)
def instructions_add(
    self: HippoTask, *, key: str, channel: str, ts: str, user: str, text: str, **ctx: Any
) -> None:
    """Add one instruction for this channel and confirm it."""
    rt = self.runtime
    slug = channel_slug(rt, channel, ctx.get("channel_name", ""))
    path = path_for(slug)
    note = " ".join(text.split())
    if not note:
        reply = "Which instruction? Say `@hippo in this channel, <instruction>`."
    else:
        meta = (("source", source_for(rt, channel, ts)), ("added", today(rt.config)), ("by", user))

        def write() -> str:
            rt.store.write(
                [AddEntry(path, note, meta, title=f"Channel #{slug}: how to behave here")],
                author=author(user),
                message=f"instructions #{slug}: {note[:60]}",
                key=key,
            )
            return f"Noted for #{slug}: “{note}” ({file_link(rt.config.public_url, path)})."

        reply = write_or_refuse(write, "Not saved: {error}.")
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


@task(INSTRUCTIONS_LIST, **RETRY)
def instructions_list(self: HippoTask, *, key: str, channel: str, **ctx: Any) -> None:
    """List this channel's instructions, numbered as `remove N` expects."""
    rt = self.runtime
    slug = channel_slug(rt, channel, ctx.get("channel_name", ""))
    entries = _entries(rt, path_for(slug))
    if not entries:
        reply = f"No instructions for #{slug} yet. Add one: `/hippo instructions add <text>`."
    else:
        lines = [f"{i}. {e.text}" for i, e in enumerate(entries, 1)]
        link = file_link(rt.config.public_url, path_for(slug))
        reply = f"Instructions for #{slug} ({link}):\n" + "\n".join(lines)
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


@task(INSTRUCTIONS_REMOVE, **RETRY)
def instructions_remove(
    self: HippoTask, *, key: str, channel: str, user: str, number: str, **ctx: Any
) -> None:
    """Remove instruction N (as numbered by the list) and confirm."""
    rt = self.runtime
    slug = channel_slug(rt, channel, ctx.get("channel_name", ""))
    path = path_for(slug)
    entries = _entries(rt, path)
    n = int(number) if number.isdigit() else 0
    if rt.store.find_key(key):
        reply = f"Removed instruction {number} from #{slug}."  # a rerun: it landed already
    elif not 1 <= n <= len(entries):
        reply = (
            f"There is no instruction {number!r} for #{slug} (it has {len(entries)}); "
            "`/hippo instructions` lists them with their numbers."
        )
    else:
        gone = entries[n - 1]

        def write() -> str:
            rt.store.write(
                [RemoveEntry(path, gone.text)],
                author=author(user),
                message=f"instructions #{slug}: remove {gone.text[:60]}",
                key=key,
            )
            return f"Removed instruction {n} from #{slug}: “{gone.text}”."

        reply = write_or_refuse(write, "Not removed: {error}.")
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


def register(app: HippoCelery) -> None:
    app.add_tasks(instructions_add, instructions_list, instructions_remove)
