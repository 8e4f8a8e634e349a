"""Recall from Slack: "what do you know about X?", "recall X", `/hippo recall X`."""

from __future__ import annotations

import re

from bot.slack.intent import Intent
from jobs.task_messages import Recall

_RECALL = re.compile(
    r"^(?:what\s+do\s+(?:you|we)\s+know\s+(?:about|of)|what\s+(?:is|are)|recall|search(?:\s+for)?"
    r"|look\s*up|tell\s+me\s+about)\s+(?P<query>.+?)\s*\??$",
    re.I,
)


def parse(text: str) -> Intent | None:
    m = _RECALL.match(text)
    return Intent(Recall(query=m["query"]), ack="Looking…") if m else None
