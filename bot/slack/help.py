"""Help: `/hippo help`, "@hippo help", and the answer to anything hippo does not understand."""

from __future__ import annotations

from bot.slack.intent import Intent
from jobs.task_messages import ShowHelp


def parse(text: str) -> Intent:
    return Intent(ShowHelp())
