"""Which memory a fact belongs to: a person's own, the team's or the org's (rules, no LLM).

A conversation can have several memory repositories open at once (jobs/memories.py): the
team's, the asking person's own (`me`) and an org-wide one. A fact about the person's own habits
or preferences ("I prefer…", "I format…", "I'd rather…", "Personally…", "my …", "remind me…")
goes to theirs; a fact about the team's work (the deploy, a service, "we…") to the team's. When
the words point both ways, name the person only as an object ("show me…"), or name no one and
the person has only their own memory in mind, the router does not guess: `choose` raises
`UnclearScope`, whose message names the choices, and the door asks the person. The org memory
is never chosen by the rules; it is written only when asked for by name.

Pure: no I/O. With an LLM key a door may pass `judge` (Claude's one-word verdict) to settle
what the rules find unclear; the rules alone always give an answer or a question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from memory.errors import NoteRejected

TEAM, ME, ORG = "team", "me", "org"
ORDER = (ME, TEAM, ORG)  # how mixed results are listed: the person's own first
ALIASES = {
    "me": ME,
    "my": ME,
    "mine": ME,
    "personal": ME,
    "own": ME,
    "team": TEAM,
    "ours": TEAM,
    "shared": TEAM,
    "org": ORG,
    "organisation": ORG,
    "organization": ORG,
    "company": ORG,
}

Judge = Callable[[str], str | None]  # text → "me" | "team" | None (unclear)

# First person singular about the person's own ways: "I" as the subject of a present habit
# ("I format…", "I'd rather…", "I've never…", "I'm…"), "personally", "my", "remind me". A past
# event ("I fixed the cache") is a report, not a habit, and does not count.
_PERSONAL = re.compile(
    r"\b(?:i(?:'m|'d|'ve|\s+am|\s+have|\s+would)?\s+(?!\w+ed\b)[a-z]\w*|"
    r"personally|my|mine|myself|remind\s+me|(?:for|to|from)\s+me|me\s+know)\b",
    re.I,
)
# A bare "me" as an object ("show me…", "ping me…", "tell me…") names the person but says
# nothing about them: alone it is a question, never the team's by default.
_MENTION = re.compile(r"\bme\b", re.I)
# The team's work: first person plural, the team, and the things a team runs together.
_TEAM = re.compile(
    r"\b(?:we|we're|our|ours|us|team|teams|everyone|everybody|all\s+of\s+us|the\s+org|"
    r"deploys?|deployments?|deploying|releases?|prod|production|staging|services?|"
    r"on-?call|incidents?|pipelines?|ci|repos?|repository|databases?|cluster|migrations?|"
    r"customers?|alerts?|runbooks?)\b",
    re.I,
)
# Said to oneself: the person's own whatever the topic ("remind me to re-check the deploy").
_OWN = re.compile(r"\b(?:remind\s+me|note\s+to\s+self|for\s+myself)\b", re.I)
_PATHISH = re.compile(r"[\w.-]+/[\w.-]+|\[\[[^\]]+\]\]")  # owner/repo, a path, a [[link]]


class UnknownMemory(NoteRejected):
    """A memory asked for by a name that is not open here; names the ones that are."""

    code = "unknown_memory"


class UnclearScope(NoteRejected):
    """The rules cannot tell whose fact this is; the door asks which memory it goes to."""

    code = "unclear_scope"

    def __init__(self, text: str, choices: Sequence[str]) -> None:
        self.text = text
        self.choices = tuple(choices)
        listed = " or ".join(self.choices)
        super().__init__(
            f"unclear which memory this belongs to (choices: {listed}): say which, e.g. "
            f"memory={self.choices[0]}"
        )


def normalise(name: str, open_: Sequence[str]) -> str:
    """`name` as one of the open memories ("me", "my" → me); raises UnknownMemory naming them."""
    key = ALIASES.get(name.strip().lower().strip("[]"), "")
    if key not in open_:
        listed = ", ".join(open_)
        why = "" if key else " (not a memory's name)"
        raise UnknownMemory(f"no memory {name!r} here{why}: choose one of {listed}")
    return key


def classify(text: str) -> str | None:
    """ME for a fact about the person's own habits, TEAM for the team's work or an impersonal
    fact, None when the words point both ways ("I prefer we deploy on Fridays") or only name
    the person as an object ("show me the command first")."""
    if _OWN.search(text):
        return ME
    personal = bool(_PERSONAL.search(text))
    team = bool(_TEAM.search(text) or _PATHISH.search(text))
    if personal and team:
        return None
    if personal:
        return ME
    return None if _MENTION.search(text) else TEAM


def choose(text: str, open_: Sequence[str], *, given: str = "", judge: Judge | None = None) -> str:
    """The memory `text` goes to: `given` when named, else the rules' (then `judge`'s) answer.
    With no personal memory open everything goes to the team's, as with one memory."""
    if given.strip():
        return normalise(given, open_)
    if ME not in open_:
        return TEAM if TEAM in open_ else open_[0]
    found = classify(text)
    if found is None and judge is not None:
        verdict = judge(text)
        found = verdict if verdict in (ME, TEAM) else None
    if found is None:
        raise UnclearScope(text, [s for s in ORDER if s in open_ and s != ORG])
    return found


def label(scope: str) -> str:
    """How a line from `scope` is shown next to lines from other memories: `[me]`, `[team]`."""
    return f"[{scope}]"
