"""Saving notes from Slack: "save a note: …" / "remember …", the shortcut, the save reaction."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack.dedupe import submit
from bot.slack.intent import Intent, SlackContext
from integrations.slack_post import plain_text
from jobs.runtime import Runtime
from jobs.task_messages import SaveNote, SaveReacted

SHORTCUT = "save_to_memory"  # manifest.yml: features.shortcuts[].callback_id

_SAVE = re.compile(
    r"^(?:please\s+)?(?:save\s+(?:a\s+|this\s+)?note|remember|note)(?:\s+that)?\b\s*[:,\-–]?\s*",
    re.I,
)


# "save a note in ops/deploys.md: X": the file named (a markdown path, backticks allowed) gets X,
# and is created with a title when new. A colon or comma after the path says where X starts.
# Slack links a bare `deploys.md` as a domain; plain_text leaves "deploys.md (http://deploys.md)".
_IN_FILE = re.compile(
    r"^(?:in|to|into|under)\s+`?(?P<path>[^\s`]+\.md)`?(?:\s+\(https?://[^\s)]*\))?\s*[:,\-–]\s*",
    re.I,
)


# "save a note to my memory: X", "remember for the team: X": which memory (jobs/slack/tasks.py).
_TO_MEMORY = re.compile(
    r"^(?:to|in|into|for)\s+(?:(?P<me>my(?:\s+own)?\s+memory|me|myself)|(?P<org>the\s+org"
    r"(?:'s)?(?:\s+memory)?|org\s+memory)|(?P<team>the\s+team(?:'s)?(?:\s+memory)?|team"
    r"\s+memory))\s*[:,\-–]\s*",
    re.I,
)


def parse(text: str) -> Intent | None:
    """ "save a note: X", "save note X", "remember (that) X", "note (that) X" → save X;
    "save a note in FILE.md: X" → save X in that file; "… to my memory: X" (the team memory,
    the org memory) → save X there."""
    m = _SAVE.match(text)
    if m is None:
        return None
    rest, memory = text[m.end() :], None
    named = _TO_MEMORY.match(rest)
    if named is not None:
        rest, memory = rest[named.end() :], named.lastgroup
    into = _IN_FILE.match(rest)
    if into is not None:
        note = SaveNote(rest[into.end() :], into["path"], memory=memory)
        return Intent(note, ack="Saving that to memory…")
    return Intent(SaveNote(rest, memory=memory), ack="Saving that to memory…")


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.shortcut(SHORTCUT)
    def on_shortcut(ack: Ack, body: dict[str, Any]) -> None:
        ack()
        message = body.get("message") or {}
        channel = body.get("channel") or {}
        ts = str(message.get("ts") or body.get("message_ts") or "")
        intent = Intent(SaveNote(plain_text(str(message.get("text") or ""))))
        submit(
            rt,
            intent,
            [("interaction", body["trigger_id"])],
            SlackContext(
                key=f"slack:{body['trigger_id']}",
                channel=str(channel.get("id") or ""),
                channel_name=str(channel.get("name") or ""),
                ts=ts,
                thread_ts=str(message.get("thread_ts") or ts),
                user=str((body.get("user") or {}).get("id") or ""),
            ).sent_by(body.get("user") or {}),
        )

    @bolt.event("reaction_added")
    def on_reaction(body: dict[str, Any], event: dict[str, Any]) -> None:
        item = event.get("item") or {}
        if event.get("reaction") != rt.config.save_reaction or item.get("type") != "message":
            return
        channel, ts = str(item.get("channel") or ""), str(item.get("ts") or "")
        # Two people reacting to one message save it once.
        submit(
            rt,
            Intent(SaveReacted()),
            [("event", body["event_id"]), ("reacted", channel, ts)],
            SlackContext(
                key=f"slack:{body['event_id']}",
                channel=channel,
                channel_name="",
                ts=ts,
                thread_ts="",
                user=str(event.get("user") or ""),
            ).sent_by(event),
        )
