"""Claude as a second reader of the pitfall check (memory.lessons.pitfalls).

It may add findings the words did not catch; memory.lessons.pitfalls.claims keeps only those that
cite a lesson it was shown and land on a line the diff added. Any API failure adds nothing.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

import anthropic

from integrations.llm import complete
from memory.lessons import pitfalls

log = logging.getLogger(__name__)

SYSTEM = (
    "You review the lines an AI agent added in a pull request against conventions the "
    "repository's people taught it (numbered L1, L2, …). For each added line that goes against "
    "a convention, answer one line: `path:line L<n> why` (why: at most 20 words). Only lines "
    "that clearly repeat the mistake the convention names. If none, answer NONE."
)


class ClaudeReviewer:
    def __init__(self, client: anthropic.Anthropic, model: str) -> None:
        self.client = client
        self.model = model

    def findings(
        self, pits: Sequence[pitfalls.Pitfall], lines: Sequence[pitfalls.AddedLine]
    ) -> list[pitfalls.Finding]:
        if not pits or not lines:
            return []
        try:
            text, _ = complete(
                self.client,
                model=self.model,
                system=SYSTEM,
                prompt=pitfalls.prompt(pits, lines),
                max_tokens=600,
            )
        except anthropic.APIError as exc:
            log.warning("Claude could not review the pull request (%s); words only", exc)
            return []
        return pitfalls.claims(text, pits, lines)
