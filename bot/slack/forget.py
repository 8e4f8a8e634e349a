"""Forgetting from Slack: "forget (that) X", and the buttons that answer "which one?"."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack.dedupe import claim, submit
from bot.slack.intent import Intent, SlackContext
from jobs import keys
from jobs.runtime import Runtime
from jobs.task_messages import Forget, ForgetPick

_FORGET = re.compile(r"^(?:please\s+)?forget\b\s*(?:that\s+|about\s+)?", re.I)
_BUTTON = re.compile(r"^forget_(?:pick_\d+|cancel)$")  # action ids in jobs.slack.tasks


def parse(text: str) -> Intent | None:
    """ "forget (that|about) X" → forget X."""
    m = _FORGET.match(text)
    return Intent(Forget(text[m.end() :]), ack="Looking for it…") if m else None


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.action(_BUTTON)
    def on_pick(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        question, _, pick = str(action.get("value") or "").rpartition("|")
        if not question:
            return
        # One answer per question: a second click (or a second person) changes nothing.
        if not claim(rt, "answered", question):
            return
        container = body.get("container") or {}
        channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
        ephemeral = bool(container.get("is_ephemeral"))
        interaction = str(body.get("trigger_id") or action.get("action_ts") or question)
        submit(
            rt,
            Intent(ForgetPick(question, int(pick or -1))),
            [("interaction", interaction)],
            SlackContext(
                key=f"slack:{interaction}",
                channel=channel,
                message_ts=str(container.get("message_ts") or ""),
                user=str((body.get("user") or {}).get("id") or ""),
                # an ephemeral question (asked with /hippo) is replaced through its response_url
                response_url=str(body.get("response_url") or "") if ephemeral else "",
                # released when the presser may not forget: someone of the team still can
                claim=keys.slack_seen("answered", question),
            ).sent_by(body.get("user") or {}),
        )
