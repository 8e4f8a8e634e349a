"""Questions for hippo's agent ("@hippo why does checkout-api return 504s?"), and "Try again".

The intent catches what the earlier intents (notes, instructions, forget, recall) did not and
that reads as a question or a request: it ends with '?' or starts with a question word or a verb
asking for work. Anything else still gets help. The "Try again" button (block action
`agent_retry`) re-queues a turn whose Claude calls ran out of retries.
"""

from __future__ import annotations

import re
from dataclasses import asdict
from typing import Any

from slack_bolt import Ack, App

from bot.slack.intent import Intent
from jobs.agent.tasks import RETRY_ACTION, retry_from_button
from jobs.runtime import Runtime
from jobs.task_messages import Answer, send

_ASKS = re.compile(
    r"^(why|how|what|when|where|who|whom|whose|which|is|are|was|were|do|does|did|can|could|"
    r"should|would|will|has|have|had|explain|summari[sz]e|describe|compare|list|find|check|"
    r"update|correct|fix|add|remember|note that|tell|show|give|help me|please)\b",
    re.I,
)


def parse(text: str) -> Intent | None:
    """A question or request for the agent; None leaves it to help."""
    t = text.strip()
    if not t or t.lower().rstrip("?!. ") == "help":
        return None
    if t.endswith("?") or _ASKS.match(t):
        return Intent(Answer(t), ack="Thinking…")
    return None


def listen(bolt: App, rt: Runtime) -> None:
    @bolt.action(RETRY_ACTION)
    def on_retry(ack: Ack, body: dict[str, Any], action: dict[str, Any]) -> None:
        ack()
        q = retry_from_button(rt, str(action.get("value") or ""), str(action.get("action_ts")))
        if q is None:  # pressed twice, or expired: the first press already re-queued it
            return
        message_ts = str((body.get("container") or {}).get("message_ts") or "")
        send(rt, Answer(**asdict(q), retry_of=message_ts))
