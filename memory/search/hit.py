"""One search hit, as every caller of search gets it (CLI, MCP, Slack, briefings, agents)."""

from __future__ import annotations

from dataclasses import dataclass

from memory.format import parse_entry


@dataclass(frozen=True)
class Hit:
    """One matching line: where it is, the entry text (metadata split off) and how well it hit."""

    path: str
    line: int  # 1-based
    text: str
    meta: dict[str, str]
    score: float
    entry: bool = True  # False for prose lines and non-markdown files

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "text": self.text,
            "meta": dict(self.meta),
            "score": self.score,
            "entry": self.entry,
        }


def hit(path: str, line_no: int, text: str, entry: bool, score: float) -> Hit:
    """The hit for line `line_no` of `path`, as written (`text`): an entry's text and metadata
    split apart, a prose line as it stands (a blank one named by its path)."""
    if entry:
        parsed = parse_entry(text, line_no - 1)
        if parsed is not None:
            return Hit(path, line_no, parsed.text, parsed.metadata, score)
    return Hit(path, line_no, text.strip() or path, {}, score, entry=False)
