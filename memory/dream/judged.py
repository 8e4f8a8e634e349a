"""`.dream/judged.json`: Claude's word on each possible duplicate it judged, so no pair is asked
twice (issue 40). Kept in the memory repository beside the dream's state: it travels with the
memory (a new worker, a restored backup and a second machine know what was asked), each night's
additions are in tidy's commit with the reasons, and reverting that commit forgets them with the
merges they made. Redis was the other place: it forgets on eviction or a flush, and a fresh one
would pay for every pair again.

Keyed by the pair's text (the fact keys of both entries, in either order; `key`); an entry
edited since is a new pair. At most MAX answers are kept, the oldest dropped first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass

from memory import format as fmt

PATH = ".dream/judged.json"
MAX = 20_000  # answers kept (a night asks at most merge.JUDGE_CAP)
MAX_REASON = 200  # characters of Claude's reason kept and shown


@dataclass(frozen=True)
class Judgment:
    """Claude's answer on one pair: the same fact (True), not (False) or declined to say (None:
    a refusal; the pair is a person's), and why (one line)."""

    same: bool | None
    reason: str


# (older text, newer text) → Claude's judgment, or None when it gave none (an error, a refusal,
# an answer that is neither; Claude unavailable tonight): the pair is asked again another night
Judge = Callable[[str, str], Judgment | None]


def key(a: str, b: str) -> str:
    """The pair's key: its two fact keys in order, hashed (16 hex characters)."""
    both = "\n".join(sorted((fmt.fact_key(a), fmt.fact_key(b))))
    return hashlib.sha256(both.encode()).hexdigest()[:16]


class Judged:
    """The answers so far: key → (same, reason, date)."""

    def __init__(self, text: str | None) -> None:
        self.answers: dict[str, tuple[bool | None, str, str]] = {}
        self.changed = False
        try:
            data = json.loads(text or "{}")
        except ValueError:
            data = {}  # a damaged file: asked again, as on a first night
        for k, v in (data.get("pairs") or {}).items() if isinstance(data, dict) else ():
            if isinstance(v, list) and len(v) == 3 and (v[0] is None or isinstance(v[0], bool)):
                self.answers[str(k)] = (v[0], str(v[1]), str(v[2]))

    def get(self, pair_key: str) -> Judgment | None:
        hit = self.answers.get(pair_key)
        return Judgment(hit[0], hit[1]) if hit else None

    def put(self, pair_key: str, judgment: Judgment, day: str) -> None:
        self.answers[pair_key] = (judgment.same, judgment.reason[:MAX_REASON], day)
        self.changed = True

    def dump(self) -> str:
        kept = sorted(self.answers.items(), key=lambda kv: (kv[1][2], kv[0]))[-MAX:]
        pairs = {k: list(v) for k, v in sorted(kept)}
        return json.dumps({"pairs": pairs}, indent=1, sort_keys=True) + "\n"
