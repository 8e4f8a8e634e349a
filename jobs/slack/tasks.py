"""Celery tasks behind Slack: save a note, forget, recall, help. Thin: parse nothing, call memory.

Every task takes ids and text (JSON) plus `key`, the Slack event_id or interaction id. The key is
the write path's idempotency key (a redelivered task makes no second commit) and the key of the
"replied" marker in Redis (no second reply). Context every front door passes: key, channel, ts
(the message, "" for a slash command), thread_ts (where to answer), user, channel_name.
"""

from __future__ import annotations

import json
import logging
import time
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

import redis.exceptions
from celery import Task
from slack_sdk.errors import SlackApiError

from integrations import metrics
from integrations.slack import Blocks, plain_text
from jobs.celery_app import retrying, task, task_runtime
from jobs.read_counts import count_read
from jobs.runtime import Runtime
from jobs.slack import delivery
from memory import notes
from memory.errors import LockTimeout, MemoryStoreError, RemoteError
from memory.git.store import Author
from memory.search import Hit

REPLIED_TTL = 3 * 24 * 3600
# Slack errors no retry can fix (the bot was removed, the channel archived…).
PERMANENT = frozenset(
    [
        "not_in_channel",
        "channel_not_found",
        "is_archived",
        "thread_not_found",
        "msg_too_long",
        "invalid_blocks",
        "no_text",
        "account_inactive",
        "invalid_auth",
        "not_authed",
    ]
)
log = logging.getLogger("hippo.slack")
QUESTION_TTL = 7 * 24 * 3600  # a forget question stays answerable for a week
# Transient failures (the remote, the lock, Redis, Slack): the task runs again with the same key.
RETRY = retrying(SlackApiError)

HELP = """*hippo* keeps the team's memory. Mention me or use `/hippo`:
• `@hippo save a note: <text>` (or `remember <text>`), the *Save to memory* shortcut, or a \
:{reaction}: reaction on any message: saved with a link to the message.
• `@hippo in this channel, <instruction>` or `/hippo instructions add <instruction>`: how to \
behave here. `/hippo instructions` lists them, `/hippo instructions remove N` removes one.
• `@hippo forget that <fact>`: removes it and remembers that it was removed on purpose.
• `@hippo what do you know about <topic>?` (or `/hippo recall <topic>`): the best matches.
• `@hippo <any other question>` in a thread: an answer from memory (written by \
Claude when hippo has an API key), citing its files and sources.
• `/hippo dream` (workspace admins): run tonight's dream now; the digest follows.
• `/hippo …` answers only you; `/hippo share …` (or `… --share`) answers for the channel.
• Write to me in a DM, no mention needed; my Home tab shows the memory at a glance.
• `/hippo help`: this message."""


def help_text(rt: Runtime) -> str:
    return HELP.format(reaction=rt.config.save_reaction)


def today(rt: Runtime) -> str:
    return datetime.now(ZoneInfo(rt.config.timezone or "UTC")).date().isoformat()


def author(user: str) -> Author:
    """The git author for a Slack user (their id: names change, ids do not)."""
    return Author(user or "slack", f"{(user or 'slack').lower()}@users.slack.invalid")


def file_link(rt: Runtime, path: str) -> str:
    """`path` as a Slack link to the console's view of it."""
    return f"<{rt.config.public_url.rstrip('/')}/console/file/{path}|{path}>"


def source_for(rt: Runtime, channel: str, ts: str) -> str:
    """The message's permalink; for a slash command (no message) the channel's."""
    return rt.poster.permalink(channel, ts) if ts else f"https://slack.com/archives/{channel}"


def reply_once(
    rt: Runtime,
    task: Task,
    key: str,
    channel: str,
    text: str,
    *,
    thread_ts: str | None = None,
    blocks: Blocks | None = None,
) -> str | None:
    """Post once per key. A rerun of this very task (worker died mid-post) posts again rather
    than lose the reply; any other task with the same key stays silent."""
    marker = f"hippo:slack:replied:{key}"
    mine = f"sending:{task.request.id}"
    if not rt.redis.set(marker, mine, nx=True, ex=600):
        held = rt.redis.get(marker)
        if (held.decode() if isinstance(held, bytes) else held) != mine:
            return None
    try:
        # A slash command answers through its response_url; a channel hippo is not in, in a DM.
        ts = delivery.deliver(rt, task, channel, text, blocks=blocks, thread_ts=thread_ts or None)
    except SlackApiError as exc:
        if exc.response.get("error") in PERMANENT:  # retrying cannot help; the write stands
            log.warning("reply for %s not posted in %s: %s", key, channel, exc.response["error"])
            rt.redis.set(marker, f"failed:{exc.response['error']}", ex=REPLIED_TTL)
            return None
        rt.redis.delete(marker)  # the retry must be able to send it
        raise
    except Exception:
        rt.redis.delete(marker)
        raise
    _record_sent(rt, marker, f"sent:{ts}")
    return ts


def _record_sent(rt: Runtime, marker: str, value: str) -> None:
    """The reply is posted: record it, waiting out a Redis restart (seconds) rather than fail
    the task, whose retry would post the reply a second time (seen in bench/faults.py)."""
    for pause in (0.5, 1, 2, 4, 8, 15, 0):
        try:
            rt.redis.set(marker, value, ex=REPLIED_TTL)
            return
        except redis.exceptions.RedisError as exc:
            if not pause:
                log.warning("reply posted but not recorded (%s): a rerun may post it again", exc)
                return
            time.sleep(pause)


def _save(rt: Runtime, *, text: str, key: str, channel: str, ts: str, user: str) -> str:
    try:
        saved = notes.save_note(
            rt.store,
            text,
            today=today(rt),
            author=author(user),
            source=source_for(rt, channel, ts),
            by=user,
            key=key,
        )
    except (RemoteError, LockTimeout):
        raise
    except MemoryStoreError as exc:
        return f"Not saved: {exc}."
    if saved.result.created:
        metrics.NOTES_SAVED.labels("slack").inc()
    return f"Saved to {file_link(rt, saved.path)}: “{_short(saved.text)}”"


@task("hippo.slack.save_note", **RETRY)
def save_note(
    self: Task, *, key: str, channel: str, ts: str, user: str, text: str, **ctx: Any
) -> None:
    """A note from a mention, a slash command or the shortcut: save it, say where it went."""
    rt = task_runtime()
    reply = _save(rt, text=text, key=key, channel=channel, ts=ts, user=user)
    reply_once(rt, self, key, channel, reply, thread_ts=ctx.get("thread_ts"))


@task("hippo.slack.save_reacted", **RETRY)
def save_reacted(self: Task, *, key: str, channel: str, ts: str, user: str, **ctx: Any) -> None:
    """Someone reacted with the save emoji: read that message and save it."""
    rt = task_runtime()
    message = rt.poster.fetch_message(channel, ts)
    thread_ts = (message or {}).get("thread_ts") or ts
    if message is None:
        reply = "Not saved: I could not read that message (am I in this channel?)."
    else:
        text = plain_text(str(message.get("text") or ""))
        reply = _save(rt, text=text, key=key, channel=channel, ts=ts, user=user)
    reply_once(rt, self, key, channel, reply, thread_ts=thread_ts)


@task("hippo.slack.forget", **RETRY)
def forget(
    self: Task, *, key: str, channel: str, ts: str, user: str, query: str, **ctx: Any
) -> None:
    """Forget what the query names; when several entries match, ask with buttons first."""
    rt = task_runtime()
    thread_ts = ctx.get("thread_ts")
    if not query.strip():
        reply_once(
            rt,
            self,
            key,
            channel,
            "Forget what? Say `@hippo forget that <fact>`.",
            thread_ts=thread_ts,
        )
        return
    if rt.store.find_key(key):  # a rerun whose commit landed (the worker died before replying)
        what = f"what matched “{_short(query)}”"
        reply_once(rt, self, key, channel, _forgot_text(rt, what), thread_ts=thread_ts)
        return
    source = source_for(rt, channel, ts)
    done = notes.forget(
        rt.store,
        query,
        today=today(rt),
        author=author(user),
        by=user,
        reason="asked in Slack",
        key=key,
        source=source,
    )
    if done.status == "none":
        reply_once(
            rt,
            self,
            key,
            channel,
            f"Nothing in memory matches “{_short(query)}”.",
            thread_ts=thread_ts,
        )
    elif done.status == "removed":
        reply_once(rt, self, key, channel, _forgot_text(rt, _what(rt, done)), thread_ts=thread_ts)
    else:
        rt.redis.set(
            f"hippo:slack:question:{key}",
            json.dumps(
                {
                    "query": query,
                    "matches": [[m.path, m.text] for m in done.matches],
                }
            ),
            ex=QUESTION_TTL,
        )
        text = f"{len(done.matches)} entries match “{_short(query)}”. Which one should I forget?"
        reply_once(
            rt,
            self,
            key,
            channel,
            text,
            thread_ts=thread_ts,
            blocks=question_blocks(text, key, done.matches),
        )


def question_blocks(text: str, key: str, matches: tuple[notes.Match, ...]) -> Blocks:
    """One button per match (value "<question key>|<n>") and a cancel button."""
    lines = "\n".join(f"{i + 1}. {_short(m.text, 140)} (`{m.path}`)" for i, m in enumerate(matches))
    buttons: Blocks = [
        {
            "type": "button",
            "action_id": f"forget_pick_{i}",
            "value": f"{key}|{i}",
            "text": {"type": "plain_text", "text": f"Forget {i + 1}"},
        }
        for i in range(min(len(matches), 20))
    ]
    buttons.append(
        {
            "type": "button",
            "action_id": "forget_cancel",
            "value": f"{key}|-1",
            "text": {"type": "plain_text", "text": "Keep all"},
        }
    )
    return [
        {"type": "section", "text": {"type": "mrkdwn", "text": f"{text}\n{lines}"}},
        {"type": "actions", "block_id": "forget_question", "elements": buttons[:25]},
    ]


@task("hippo.slack.forget_pick", **RETRY)
def forget_pick(
    self: Task,
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
    rt = task_runtime()
    raw = rt.redis.get(f"hippo:slack:question:{question}")
    if raw is None:
        expired = "That question expired; ask me to forget again."
        delivery.update(rt, self, channel, message_ts, expired)
        return
    asked = json.loads(raw)
    if pick < 0 or pick >= len(asked["matches"]):
        kept = f"Kept everything (<@{user}> chose to keep all)."
        delivery.update(rt, self, channel, message_ts, kept)
        return
    path, text = asked["matches"][pick]
    # A rerun whose commit landed (the worker died before the edit) makes no second attempt.
    landed = rt.store.find_key(key) is not None
    done = None
    if not landed:
        done = notes.forget(
            rt.store,
            asked["query"],
            today=today(rt),
            author=author(user),
            by=user,
            reason="asked in Slack",
            key=key,
            pick=[(path, text)],
        )
    if done is None or done.status == "removed":
        what = f"“{_short(text)}” from {file_link(rt, path)}"
        delivery.update(rt, self, channel, message_ts, _forgot_text(rt, what) + f" (<@{user}>)")
    else:
        gone = f"“{_short(text)}” is already gone from `{path}`."
        delivery.update(rt, self, channel, message_ts, gone)


@task("hippo.slack.recall", **RETRY)
def recall(self: Task, *, key: str, channel: str, query: str, **ctx: Any) -> None:
    """The best search hits for the query, with paths and sources, in the thread."""
    rt = task_runtime()
    found = rt.store.search(query, limit=10) if query.strip() else []
    hits = ([h for h in found if h.entry] or found)[:5]  # facts first; prose only if nothing else
    if not hits:
        text = f"I know nothing about “{_short(query)}” yet."
    else:
        lines = [f"What I know about “{_short(query)}”:"]
        for hit in hits:
            lines.append(_hit_line(rt, hit))
        for path in {hit.path for hit in hits}:  # feeds dreaming's "no session used this"
            count_read(rt.redis, rt.config.workspace, path)
        text = "\n".join(lines)
    reply_once(rt, self, key, channel, text, thread_ts=ctx.get("thread_ts"))


def _hit_line(rt: Runtime, hit: Hit) -> str:
    source = hit.meta.get("source")
    tail = f" (<{source}|source>)" if source else ""
    return f"• {_short(hit.text, 200)} — {file_link(rt, hit.path)}{tail}"


@task("hippo.slack.help", **RETRY)
def help_(self: Task, *, key: str, channel: str, **ctx: Any) -> None:
    """An unknown request (or "help"): list what hippo can do, in the thread."""
    rt = task_runtime()
    reply_once(rt, self, key, channel, help_text(rt), thread_ts=ctx.get("thread_ts"))


def _what(rt: Runtime, done: notes.Forgot) -> str:
    return "; ".join(f"“{_short(m.text)}” from {file_link(rt, m.path)}" for m in done.matches)


def _forgot_text(rt: Runtime, what: str) -> str:
    return f"Forgot {what}. It is tombstoned in `forgotten.md`, so it will not come back unnoticed."


def _short(text: str, n: int = 80) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
