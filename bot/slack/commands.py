"""`/hippo …`: the same requests as mentions, answered in the channel; help inline."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.slack.claims import submit
from bot.slack.intake import route
from bot.slack.intent import SlackContext
from integrations.slack import plain_text
from jobs.runtime import Runtime
from jobs.slack.messages import help_text
from jobs.slack.tasks import SHOW_HELP

COMMAND = "/hippo"  # manifest.yml: features.slash_commands[].command


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.command(COMMAND)
    def on_command(ack: Ack, command: dict[str, Any]) -> None:
        text = plain_text(str(command.get("text") or ""))
        intent = route(text)
        if intent.task == SHOW_HELP:  # help (asked for, or the answer to an unknown command)
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
            ),
        )
        ack(intent.ack if queued else "")
