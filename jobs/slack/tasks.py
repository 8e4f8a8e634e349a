"""Celery tasks behind Slack: save a note, forget, recall, help. Thin: parse nothing, call memory.

Every task takes ids and text (JSON) plus `key`, the Slack event_id or interaction id. The key is
the write path's idempotency key (a redelivered task makes no second commit) and the key of the
"replied" marker in Redis (no second reply, jobs/slack/replies.py). Context every front door
passes: key, channel, ts (the message, "" for a slash command), thread_ts (where to answer), user,
channel_name. What the tasks say is in jobs/slack/messages.py.

A note goes where the memory router says (jobs/memories.py, memory/scopes.py; with an API key
Claude settles what the rules cannot); "save a note to my memory: …", "… to the team memory: …"
and "… to the org memory: …" name it. When it is unclear the note is not saved: hippo asks, in
the thread, which memory it belongs to, and the person says it again naming one. `me` is always
the Slack user who asked.
"""

from __future__ import annotations

import json
from typing import Any

from integrations import metrics
from integrations.slack_post import plain_text
from jobs import keys, memories
from jobs.config import today
from jobs.read_counts import ReadBy, count_read
from jobs.runtime import Runtime
from jobs.slack import messages as say
from jobs.slack import replies, speaker
from jobs.slack.replies import RETRY, ReplyTo, author, reply_once, source_for, write_or_refuse
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Forget, ForgetPick, Recall, SaveNote, SaveReacted, ShowHelp
from memory import notes
from memory.markup import slack
from memory.scopes import UnclearScope
from memory.search.bounds import bound
from memory.trust.actors import Action

QUESTION_TTL = 7 * 24 * 3600  # a forget question stays answerable for a week


def _save(
    rt: Runtime,
    *,
    text: str,
    key: str,
    channel: str,
    ts: str,
    user: str,
    path: str | None = None,
    memory: str | None = None,
) -> str:
    def write() -> str:
        picked = pick_memory(rt, user, memory or "", text)  # by scope; unclear: ask which
        if isinstance(picked, str):
            return picked
        scope, into = picked
        saved = notes.save_note(
            into.store,
            text,
            path=path,
            today=today(rt.config),
            author=author(user),
            source=source_for(rt, channel, ts),
            by=user,
            key=key,
        )
        if saved.result.created:
            metrics.NOTES_SAVED.labels("slack").inc()
        return say.saved(rt.config.public_url, saved.path, saved.text, scope)

    return write_or_refuse(write, "Not saved: {error}.")


def pick_memory(rt: Runtime, user: str, memory: str, text: str) -> tuple[str, Runtime] | str:
    """The memory a note goes to and its Runtime, or the question to ask when unclear."""
    try:
        return memories.pick(rt, user, given=memory, text=text, judge=memories.judge(rt))
    except UnclearScope as exc:
        return say.which_memory(exc)


@task(SaveNote.TASK, **RETRY)
def save_note(
    self: HippoTask,
    *,
    key: str,
    channel: str,
    ts: str,
    user: str,
    text: str,
    path: str | None = None,
    memory: str | None = None,
    **ctx: Any,
) -> None:
    """A note from a mention, a slash command or the shortcut: save it (in `path` when the
    person named a file, in `memory` when they named one), say where it went."""
    rt = self.runtime
    to = ReplyTo.of(channel, ctx, user=user, thread_ts=ctx.get("thread_ts"))
    if not speaker.allowed(self, key, to, ctx, _action_for(path)):
        return
    where = {"path": path, "memory": memory}
    reply = _save(rt, text=text, key=key, channel=channel, ts=ts, user=user, **where)
    reply_once(rt, self, key, to, reply)


def _action_for(path: str | None) -> Action:
    """What saving a note in `path` is: instructions and conventions are their own actions."""
    top = (path or "").lstrip("/").split("/", 1)[0]
    return {"preferences": Action.INSTRUCT, "conventions": Action.CONVENTIONS}.get(top, Action.SAVE)


@task(SaveReacted.TASK, **RETRY)
def save_reacted(
    self: HippoTask, *, key: str, channel: str, ts: str, user: str, **ctx: Any
) -> None:
    """Someone reacted with the save emoji: read that message and save it."""
    rt = self.runtime
    to = ReplyTo.of(channel, ctx, user=user)
    if not speaker.allowed(self, key, to, ctx, Action.SAVE, private=True):
        return
    message = rt.poster.fetch_message(channel, ts)
    thread_ts = (message or {}).get("thread_ts") or ts
    if message is None:
        reply = "Not saved: I could not read that message (am I in this channel?)."
    else:
        text = plain_text(str(message.get("text") or ""))
        reply = _save(rt, text=text, key=key, channel=channel, ts=ts, user=user)
    reply_once(rt, self, key, ReplyTo.of(channel, ctx, user=user, thread_ts=thread_ts), reply)


@task(Forget.TASK, **RETRY)
def forget(
    self: HippoTask, *, key: str, channel: str, ts: str, user: str, query: str, **ctx: Any
) -> None:
    """Forget what the query names; when several entries match, ask with buttons first."""
    rt = self.runtime
    url = rt.config.public_url

    to = ReplyTo.of(channel, ctx, user=user, thread_ts=ctx.get("thread_ts"))
    if not speaker.allowed(self, key, to, ctx, Action.FORGET):
        return

    def reply(text: str, blocks: Any = None) -> None:
        reply_once(rt, self, key, to, text, blocks=blocks)

    if not query.strip():
        return reply(say.FORGET_WHAT)
    if rt.store.find_key(key):  # a rerun whose commit landed (the worker died before replying)
        return reply(say.forgot(f"what matched “{say.short(query)}”"))
    done = notes.forget(
        rt.store,
        query,
        today=today(rt.config),
        author=author(user),
        by=user,
        reason="asked in Slack",
        key=key,
        source=source_for(rt, channel, ts),
    )
    if done.status == "none":
        return reply(say.nothing_matches(query))
    if done.status == "removed":
        return reply(say.forgot(say.forgot_matches(url, done)))
    # Several match: keep the question (for the buttons' forget_pick) and ask which one.
    asked = {"query": query, "matches": [[m.path, m.text] for m in done.matches]}
    rt.redis.set(keys.slack_question(key), json.dumps(asked), ex=QUESTION_TTL)
    text = say.which_one(query, len(done.matches))
    reply(text, say.question_blocks(text, key, done.matches))


@task(ForgetPick.TASK, **RETRY)
def forget_pick(
    self: HippoTask,
    *,
    key: str,
    channel: str,
    user: str,
    question: str,
    pick: int,
    message_ts: str,
    **ctx: Any,
) -> None:
    """A person answered a forget question: forget the chosen entry (or keep all)."""
    rt = self.runtime
    to = ReplyTo.of(channel, ctx, user=user)
    if not speaker.allowed(self, key, to, ctx, Action.FORGET, private=True):
        return  # the question stays open for someone of the team
    raw = rt.redis.get(keys.slack_question(question))
    if raw is None:
        replies.update(rt, to, message_ts, say.QUESTION_EXPIRED)
        return
    asked = json.loads(raw)
    if pick < 0 or pick >= len(asked["matches"]):
        kept = f"Kept everything (<@{user}> chose to keep all)."
        replies.update(rt, to, message_ts, kept)
        return
    path, text = asked["matches"][pick]
    # A rerun whose commit landed (the worker died before the edit) makes no second attempt.
    landed = rt.store.find_key(key) is not None
    done = None
    if not landed:
        done = notes.forget(
            rt.store,
            asked["query"],
            today=today(rt.config),
            author=author(user),
            by=user,
            reason="asked in Slack",
            key=key,
            pick=[(path, text)],
        )
    if done is None or done.status == "removed":
        what = f"“{say.short(text)}” from {say.file_link(rt.config.public_url, path)}"  # escaped
        replies.update(rt, to, message_ts, say.forgot(what) + f" (<@{user}>)")
    else:
        gone = f"“{say.short(text)}” is already gone from `{slack(path)}`."
        replies.update(rt, to, message_ts, gone)


@task(Recall.TASK, **RETRY)
def recall(self: HippoTask, *, key: str, channel: str, query: str, **ctx: Any) -> None:
    """The best search hits for the query, with paths and sources, in the thread."""
    rt = self.runtime
    to = ReplyTo.of(channel, ctx, thread_ts=ctx.get("thread_ts"))
    if not speaker.allowed(self, key, to, ctx, Action.ASK):
        return
    asked = bound(query)  # what search reads of it; what was cut is said with the answer
    user = str(ctx.get("user") or "")
    # every open memory; the asker's own only where only they read the answer
    private = channel.startswith("D") or bool(ctx.get("response_url") and not ctx.get("share"))
    read = memories.read_scopes(rt.config, user, own=private)
    found = (
        memories.search(rt, user, asked.query, limit=10, own=private) if asked.query.strip() else []
    )
    hits = ([f for f in found if f.hit.entry] or found)[:5]  # facts first; prose if nothing else
    firsts = {(f.workspace, f.hit.path): f.hit.text for f in reversed(hits)}
    for (ws, path), entry in firsts.items():  # "no session used this", and the recall's record
        count_read(rt.redis, ws, path, by=ReadBy(user, "slack"), entry=entry)
    pairs = [(f.scope, f.hit) for f in hits]
    text = say.recall_answer(rt.config.public_url, query, pairs, labelled=len(read) > 1)
    if not private:
        text += say.own_elsewhere(len(memories.own_hits(rt, user, asked.query)))
    text += f"\n_{asked.note}_" if asked.cut else ""
    reply_once(rt, self, key, to, text)


@task(ShowHelp.TASK, **RETRY)
def show_help(self: HippoTask, *, key: str, channel: str, **ctx: Any) -> None:
    """An unknown request (or "help"): list what hippo can do, in the thread."""
    rt = self.runtime
    text = say.help_text(rt.config.save_reaction)
    reply_once(rt, self, key, ReplyTo.of(channel, ctx, thread_ts=ctx.get("thread_ts")), text)


def register(app: HippoCelery) -> None:
    app.add_tasks(save_note, save_reacted, forget, forget_pick, recall, show_help)
