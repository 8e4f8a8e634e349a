"""Claude's verdict on whose fact a note is, for what memory/scopes.py's rules find unclear.

One word from the small model: `me` (the person's own habits or preferences), `team` (the team's
work) or `unclear`. Any API error, or any other answer, is `None`: the door asks the person.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import anthropic

log = logging.getLogger(__name__)

PROMPT = (
    "A person asked to save this note to memory. Answer with one word: `me` if it is about "
    "the person's own habits, preferences or reminders; `team` if it is about the team's "
    "shared work (services, deploys, conventions); `unclear` if it could be either.\n\n"
    "<note>\n{text}\n</note>"
)


def judge_for(client: anthropic.Anthropic, model: str) -> Callable[[str], str | None]:
    def judge(text: str) -> str | None:
        import anthropic

        try:
            reply = client.messages.create(
                model=model,
                max_tokens=5,
                messages=[{"role": "user", "content": PROMPT.format(text=text[:2000])}],
            )
        except anthropic.APIError as exc:
            log.warning("scope verdict failed, asking the person instead: %s", exc)
            return None
        words = "".join(getattr(b, "text", "") for b in reply.content).strip().strip("`.").lower()
        return words if words in ("me", "team") else None

    return judge
