"""`/hippo …`: the same requests as mentions, answered only to the person (through the
command's `response_url`, which works in any channel, joined or not, and in DMs) unless they ask
to share: `/hippo share recall X` or `/hippo recall X --share` answer in the channel."""

from __future__ import annotations

import re
from typing import Any

from slack_bolt import Ack, App

from bot.slack.dedupe import submit
from bot.slack.intake import route
from bot.slack.intent import SlackContext
from integrations.slack_post import plain_text
from jobs.runtime import Runtime
from jobs.slack.messages import help_text
from jobs.task_messages import ShowHelp

COMMAND = "/hippo"  # manifest.yml: features.slash_commands[].command
_SHARE = re.compile(r"^share\s+|\s+--share\s*$", re.I)


def shared(text: str) -> tuple[str, bool]:
    """The command text without the share word, and whether the person asked to share."""
    rest = _SHARE.sub("", text, count=1).strip()
    return rest, rest != text.strip()


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.command(COMMAND)
    def on_command(ack: Ack, command: dict[str, Any]) -> None:
        text, share = shared(plain_text(str(command.get("text") or "")))
        intent = route(text)
        if intent.task == ShowHelp.TASK:  # help (asked for, or the answer to an unknown command)
            ack(help_text(rt.config.save_reaction))
            return
        trigger = str(command.get("trigger_id") or "")
        queued = submit(
            rt,
            intent,
            [("interaction", trigger)],
            SlackContext(
                key=f"slack:{trigger}",
                channel=str(command.get("channel_id") or ""),
                channel_name=str(command.get("channel_name") or ""),
                ts="",
                thread_ts="",
                user=str(command.get("user_id") or ""),
                response_url=str(command.get("response_url") or ""),
                share=share,
            ),
        )
        ack(intent.ack if queued else "")
