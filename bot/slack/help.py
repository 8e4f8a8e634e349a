"""Help: `/hippo help`, "@hippo help", and the answer to anything hippo does not understand."""

from __future__ import annotations

from bot.slack.intent import Intent

HELP_TASK = "hippo.slack.help"


def parse(text: str) -> Intent:
    return Intent(HELP_TASK)
