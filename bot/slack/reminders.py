"""Reminders from Slack: "remind the team to … on Friday", "reminders", "reminders done ID".

The reminder's time is read from its words by the task (memory/reminders/timing.py, relative to
the team's date), so a bad one is answered there with how to write it. The digest's and the
list's **Done** buttons close one, by the person who pressed (jobs/slack/reminders.py).
"""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack.dedupe import submit
from bot.slack.intent import Intent, SlackContext
from jobs.runtime import Runtime
from jobs.slack.reminders import DONE_ACTION
from jobs.task_messages import ReminderAdd, ReminderClose, RemindersList

# The list's Done buttons (jobs/slack/reminders.py): action ids reminder_done_<n>, value the id.
_DONE = re.compile(rf"^{DONE_ACTION}_\d+$")

_ADD = re.compile(
    r"^(?:please\s+)?remind\s+(?:the\s+team|the\s+channel|everyone|everybody|us|me|all)?\s*"
    r"(?:to|that|about|of)?\b\s*[:,\-–]?\s*(?P<text>\S.*)$",
    re.I | re.S,
)
_LIST = re.compile(r"^(?:list\s+|show\s+|open\s+)?reminders\s*[?.!]?$", re.I)
_CLOSE = re.compile(
    r"^(?:reminders?\s+)?(?:done|close|closed)\s+(?P<id>r-[0-9a-f]{2,6})\b\s*[:,\-–]?\s*(?P<reason>.*)$",
    re.I | re.S,
)


def parse(text: str) -> Intent | None:
    """ "remind the team to X on Friday" → add; "reminders" → list; "done r-1a2b3c [why]" or
    "reminders done r-1a2b3c [why]" → close."""
    text = text.strip()
    if _LIST.match(text):
        return Intent(RemindersList(), ack="Looking…")
    m = _CLOSE.match(text)
    if m is not None:
        return Intent(ReminderClose(m["id"], m["reason"].strip()), ack="Closing that reminder…")
    m = _ADD.match(text)
    if m is not None:
        return Intent(ReminderAdd(m["text"].strip()), ack="Saving that reminder…")
    return None


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.action(_DONE)
    def on_done(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        container = body.get("container") or {}
        channel = str(container.get("channel_id") or (body.get("channel") or {}).get("id") or "")
        ephemeral = bool(container.get("is_ephemeral"))
        message = body.get("message") or {}
        interaction = str(body.get("trigger_id") or action.get("action_ts") or "")
        submit(
            rt,
            Intent(ReminderClose(str(action.get("value") or ""), "")),
            [("interaction", interaction)],
            SlackContext(
                key=f"slack:{interaction}",
                channel=channel,
                user=str((body.get("user") or {}).get("id") or ""),
                thread_ts=str(message.get("thread_ts") or message.get("ts") or "") or None,
                # a list shown only to the person (/hippo reminders) is answered the same way
                response_url=str(body.get("response_url") or "") if ephemeral else None,
            ).sent_by(body.get("user") or {}),
        )
