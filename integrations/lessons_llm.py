"""Claude as the lessons' writer and judge (memory.lessons.planner.Judge), through integrations.llm.

Any API failure answers None, and memory.lessons.planner falls back to its deterministic path: a
lesson is never lost because the model was unavailable.
"""

from __future__ import annotations

import logging

import anthropic

from integrations.llm import complete

log = logging.getLogger(__name__)

WRITE = (
    "You turn how people corrected or closed an AI agent's pull request into one convention for "
    "that repository. Answer with exactly one line: imperative, specific, at most 25 words, "
    "naming files or paths where it helps, e.g. 'Tests use the shared fixtures in "
    "test/fixtures, not inline mocks'. No preamble, no quotes. If nothing general can be "
    "learned, answer NONE."
)
SAME = (
    "Two conventions learned from pull requests of one repository. Answer SAME if they ask for "
    "the same change (same kind of files, same kind of edit), otherwise DIFFERENT. One word."
)


class ClaudeJudge:
    def __init__(self, client: anthropic.Anthropic, model: str) -> None:
        self.client = client
        self.model = model

    def write(self, summary: str) -> str | None:
        try:
            text, _ = complete(
                self.client, model=self.model, system=WRITE, prompt=summary, max_tokens=120
            )
        except anthropic.APIError as exc:
            log.warning("Claude could not write the lesson (%s); using the observation", exc)
            return None
        line = text.strip().splitlines()[0].strip() if text.strip() else ""
        return None if not line or line.upper().startswith("NONE") else line

    def same(self, existing: str, candidate: str) -> bool | None:
        prompt = f"A: {existing}\nB: {candidate}"
        try:
            text, _ = complete(
                self.client, model=self.model, system=SAME, prompt=prompt, max_tokens=5
            )
        except anthropic.APIError as exc:
            log.warning("Claude could not compare lessons (%s)", exc)
            return None
        word = text.strip().upper()
        return True if word.startswith("SAME") else False if word.startswith("DIFF") else None
