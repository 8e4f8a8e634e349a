"""Celery tasks for instructions: how to behave in a channel (preferences/channels/<name>.md)
or in a repository (preferences/repos/<owner>/<repo>.md), one commit each.

Same context and idempotency rules as jobs/slack/tasks.py (the key is the event or command id).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from jobs.config import today
from jobs.runtime import Runtime
from jobs.slack import speaker
from jobs.slack.channels import channel_slug
from jobs.slack.messages import file_link
from jobs.slack.replies import RETRY, ReplyTo, author, reply_once, source_for, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import InstructionsAdd, InstructionsList, InstructionsRemove
from memory import format as fmt
from memory import repo_prefs
from memory.markup import slack
from memory.trust.actors import Action
from memory.writes import AddEntry, RemoveEntry


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


@task(InstructionsAdd.TASK, **RETRY)
def instructions_add(
    self: HippoTask, *, key: str, channel: str, ts: str, user: str, text: str, **ctx: Any
) -> None:
    """Add one instruction for this channel (or the repository named) and confirm it."""
    rt = self.runtime
    to_reply = ReplyTo.of(channel, ctx, user=user, thread_ts=ctx.get("thread_ts"))
    if not speaker.allowed(self, key, to_reply, ctx, Action.INSTRUCT):
        return
    note = " ".join(text.split())

    def write() -> str:
        to = target(rt, channel, ctx)
        if not note:
            return "Which instruction? Say `@hippo in this channel, <instruction>`."
        meta = (("source", source_for(rt, channel, ts)), ("added", today(rt.config)), ("by", user))
        rt.store.write(
            [AddEntry(to.path, note, meta, title=to.title)],
            author=author(user),
            message=f"instructions {to.short}: {note[:60]}",
            key=key,
        )
        link = file_link(rt.config.public_url, to.path)
        return f"Noted for {slack(to.label)}: “{slack(note)}” ({link})."

    reply_once(rt, self, key, to_reply, write_or_refuse(write, "Not saved: {error}."))


def _answer(
    task: HippoTask,
    key: str,
    channel: str,
    ctx: dict[str, Any],
    build: Callable[[Target], str],
    action: Action,
) -> None:
    """Reply once with what `build` says about the target, or why the named repository is
    not one; nothing when the sender may not do `action`."""
    rt = task.runtime
    to = ReplyTo.of(channel, ctx, thread_ts=ctx.get("thread_ts"))
    if not speaker.allowed(task, key, to, ctx, action):
        return
    try:
        reply = build(target(rt, channel, ctx))
    except repo_prefs.BadRepo as exc:
        reply = f"{slack(str(exc))}."
    reply_once(rt, task, key, to, reply)


@task(InstructionsList.TASK, **RETRY)
def instructions_list(self: HippoTask, *, key: str, channel: str, **ctx: Any) -> None:
    """List this channel's (or the repository's) instructions, numbered as `remove N` expects."""
    rt = self.runtime

    def listing(to: Target) -> str:
        entries = _entries(rt, to.path)
        label = slack(to.label)
        if not entries:
            how = f"--repo {label} " if ctx.get("repo") else ""
            add = f"`/hippo instructions add {how}&lt;text&gt;`"
            return f"No instructions for {label} yet. Add one: {add}."
        lines = [f"{i}. {slack(e.text)}" for i, e in enumerate(entries, 1)]
        link = file_link(rt.config.public_url, to.path)
        return f"Instructions for {label} ({link}):\n" + "\n".join(lines)

    _answer(self, key, channel, ctx, listing, Action.ASK)


@task(InstructionsRemove.TASK, **RETRY)
def instructions_remove(
    self: HippoTask, *, key: str, channel: str, user: str, number: str, **ctx: Any
) -> None:
    """Remove instruction N (as numbered by the list) and confirm."""
    rt = self.runtime

    def removal(to: Target) -> str:
        entries = _entries(rt, to.path)
        n = int(number) if number.isdigit() else 0
        label = slack(to.label)
        if rt.store.find_key(key):
            return f"Removed instruction {n} from {label}."  # a rerun: it landed already
        if not 1 <= n <= len(entries):
            how = f" --repo {label}" if ctx.get("repo") else ""
            return (
                f"There is no instruction {slack(repr(number))} for {label} "
                f"(it has {len(entries)}); "
                f"`/hippo instructions{how}` lists them with their numbers."
            )
        gone = entries[n - 1]

        def write() -> str:
            rt.store.write(
                [RemoveEntry(to.path, gone.text)],
                author=author(user),
                message=f"instructions {to.short}: remove {gone.text[:60]}",
                key=key,
            )
            return f"Removed instruction {n} from {label}: “{slack(gone.text)}”."

        return write_or_refuse(write, "Not removed: {error}.")

    _answer(self, key, channel, {**ctx, "user": user}, removal, Action.INSTRUCT)


def register(app: HippoCelery) -> None:
    app.add_tasks(instructions_add, instructions_list, instructions_remove)
