"""Which sentences of a Slack thread teach a convention or a pitfall, by fixed rules (no LLM).

A thread teaches when a person states a general rule the way runbooks and postmortems do:
"we always drain the queue before a deploy" (a convention), "never restart the primary during
backups" (a pitfall). What does not teach, whatever words it uses: questions ("should we always
…?"), hedges ("I think we always …", "… iirc"), quoted or reported text (a `>` quote, words in
quotation marks, "the vendor docs say never …"), jokes ("never deploy on Fridays lol"), one-off
statements ("don't deploy today", "after the deploy the api was slow"), and habits or facts of
one person or thing ("I always forget…", "the job never finishes").

Precision comes first: a lesson that was never taught misleads every agent it is briefed to, a
missed one costs nothing that was there before. `bench/thread_lessons.py` measures both per
category. Pure: text in, lessons out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

LessonKind = Literal["convention", "pitfall"]
CONVENTION: Final = "convention"
PITFALL: Final = "pitfall"
MAX_LESSON = 240  # characters of a lesson line; a longer sentence is not a rule people repeat

_CODE_BLOCK = re.compile(r"```.*?```", re.DOTALL)
_MENTION = re.compile(r"<[@!#][^>]*>")
_LINK = re.compile(r"<(https?://[^|>]+)(?:\|([^>]*))?>")
_QUOTED = re.compile(r"[\"“”][^\"“”]*[\"“”]|‘[^‘’]*’")
_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_CLAUSE = re.compile(r"\s*(?:,|—|–| - |:)\s*")
_FILLER = re.compile(
    r"^(?:(?:ok(?:ay)?|so|also|and|but|fyi|psa|btw|note|reminder|pro tip|protip|heads up|"
    r"rule of thumb|tl;?dr|folks|team|all|everyone|please|pls|yes|yeah|yep|right|correct|"
    r"agreed|\+1|important|again)\b[\s,:!-]*)+",
    re.IGNORECASE,
)
_SUBJECT = r"(?:(?:we|you|u|everyone|everybody|folks|y'all|people|the team|one)\s+)?"
_MODAL = r"(?:(?:must|should|have to|need to|gotta)\s+)?"
_QUESTION_START = re.compile(
    r"^(?:do|does|did|should|shall|can|could|would|will|is|are|was|were|why|what|how|when|"
    r"where|who|which|anyone|anybody|any idea|has|have|am|may|wdyt|thoughts)\b(?!\s+not\b)",
    re.IGNORECASE,
)
_HEDGES = re.compile(
    r"\b(?:i think|i thought|i believe|i guess|i suppose|i feel like|not sure|unsure|maybe|"
    r"perhaps|probably|possibly|iirc|afaik|afaict|i'?m not certain|seems like|apparently|"
    r"kinda|sort of|i wonder|wondering|idk|dunno|might be|could be)\b",
    re.IGNORECASE,
)
_SOFT_MODALS = re.compile(r"\b(?:might|may|could|would)\b", re.IGNORECASE)
_JOKES = re.compile(
    r"(?:\b(?:lol|lmao|rofl|haha\w*|hehe\w*|jk|j/k|kidding|joking)\b|/s\b|:(?:joy|laughing|"
    r"rofl|sweat_smile|upside_down_face|wink|stuck_out_tongue\w*|troll\w*):|😂|🤣|🙃|😜|😉)",
    re.IGNORECASE,
)
_REPORTED = re.compile(
    r"\b(?:said|says|say|told|tells|wrote|writes|claims?|claimed|according to|quote|quoting|"
    r"the docs?|the readme|the wiki|the vendor|their docs|stack ?overflow|the article|"
    r"the blog|chatgpt|the bot)\b",
    re.IGNORECASE,
)
_ONE_OFF = re.compile(
    r"\b(?:today|tonight|tomorrow|yesterday|this (?:morning|afternoon|evening|week|weekend|"
    r"sprint|time|once|release|one)|right now|for now|just now|at the moment|until (?:mon|tue|"
    r"wed|thu|fri|sat|sun|next|the|we|further|[0-9])\w*|next (?:week|time|sprint)|"
    r"for the next|just this|this particular|in an hour|in \d+ (?:min|hour)\w*|asap)\b",
    re.IGNORECASE,
)
# After "before"/"after"/"during": what makes the rule general (a deploy, any deploy, every
# release, deploying, backups), against one event (the deploy, this release, lunch).
_GENERAL_OBJECT = re.compile(
    r"\b(?:before|after|during|while|prior to|ahead of|whenever|every time|each time|any time|"
    r"when(?:ever)?|until|without|unless|on)\s+(?:a|an|any|each|every|all|\w+ing|\w+s)\b",
    re.IGNORECASE,
)
_GENERAL_WORD = re.compile(
    r"\b(?:always|never|every|each|whenever|any time|anytime|all)\b", re.IGNORECASE
)
_NOT_RULES = frozenset(
    re.findall(
        r"\S+",
        "worry know think care mind bother get see remember have understand like want need mean "
        "believe recall panic feel expect agree",
    )
)
# Imperatives a rule starts with when it names no subject ("drain the queue before …").
_VERBS = frozenset(
    re.findall(
        r"\S+",
        "add announce apply archive ask back bump call cancel check clean clear close confirm "
        "copy cordon create delete deploy disable double-check drain drop dump enable ensure "
        "escalate export fail flush follow freeze get give hold include keep kill label leave let "
        "lock log look mark merge migrate monitor move notify open page pause pin ping post "
        "promote pull push put read rebase reboot rebuild record reload remove rename repeat "
        "replace restart restore resume revert roll rollback rotate run scale set ship silence "
        "snapshot start stop suspend switch sync tag take tell test throttle turn unlock update "
        "upgrade use validate verify wait warm watch write",
    )
)


@dataclass(frozen=True)
class Taught:
    """A lesson a sentence teaches: its kind, and its line as the person said it."""

    kind: LessonKind
    text: str


def clean(message: str) -> str:
    """The person's own words: quoted lines (`>`), code blocks and mentions removed, links as
    their labels, Slack's entities undone."""
    lines = [ln for ln in message.splitlines() if not ln.lstrip().startswith(("&gt;", ">"))]
    text = _CODE_BLOCK.sub(" ", "\n".join(lines))
    text = _LINK.sub(lambda m: m.group(2) or m.group(1), _MENTION.sub("", text))
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def lessons(message: str) -> list[Taught]:
    """Every lesson `message` teaches, once each, in order (none for most messages)."""
    if _JOKES.search(message):
        return []  # a joke anywhere in the message colours all of it
    out: dict[str, Taught] = {}
    for sentence in _SENTENCE.split(clean(message)):
        found = taught(sentence)
        if found is not None:
            out.setdefault(found.text.lower(), found)
    return list(out.values())


_CUE = re.compile(
    r"\b(?:always|never|don'?t|do not|must|mustn'?t|should(?:n'?t| not)|make sure|be sure|"
    r"remember to|ensure|avoid|careful|watch out|beware|rule|before|after|whenever|every)\b",
    re.IGNORECASE,
)


def has_cue(message: str) -> bool:
    """Whether any statement (not a question) in `message` uses a word rules are stated with:
    the messages worth showing Claude (with a key) to read for lessons."""
    sentences = _SENTENCE.split(clean(message))
    return any(_CUE.search(s) and not s.rstrip().endswith("?") for s in sentences)


def taught(sentence: str) -> Taught | None:
    """The lesson one sentence teaches, or None."""
    s = " ".join(sentence.split()).strip(" *_~")
    if not s or s.endswith("?") or len(s) > MAX_LESSON or _QUESTION_START.match(s):
        return None
    if _HEDGES.search(s) or _ONE_OFF.search(s) or _quoted_rule(s):
        return None
    body = _FILLER.sub("", s).strip()
    kind = _kind(body)
    if kind is None:
        return None
    return Taught(kind, _line(body))


def _quoted_rule(s: str) -> bool:
    """The rule is someone else's words: inside quotation marks, or reported ("X says never")."""
    for quoted in _QUOTED.findall(s):
        if _GENERAL_WORD.search(quoted) or re.search(r"\bdon'?t\b", quoted, re.IGNORECASE):
            return True
    trigger = re.search(r"\b(?:always|never|don'?t|do not|must|make sure|avoid)\b", s, re.I)
    return bool(trigger and _REPORTED.search(s[: trigger.start()]))


def _kind(body: str) -> LessonKind | None:
    """Convention, pitfall or nothing, by how the clause starts (see the module's docstring)."""
    low = body.lower()
    soft = _SOFT_MODALS.search(low)
    first_clause = _CLAUSE.split(low, maxsplit=1)[0]
    if low.startswith(("never mind", "nevermind")):
        return None  # the idiom, not a rule
    if re.match(rf"^{_SUBJECT}{_MODAL}never\b", low) or re.match(r"^avoid\b", low):
        return None if soft and soft.start() < low.find("never") else PITFALL
    negative = re.match(rf"^{_SUBJECT}(?:do not|don'?t|must not|mustn'?t|cannot)\s+(\S+)", low)
    if negative:
        verb = negative.group(1).strip(".,!")
        if verb in _NOT_RULES:
            return None
        if verb == "forget":
            return CONVENTION
        return PITFALL if (_GENERAL_OBJECT.search(low) or verb in _VERBS) else None
    if re.match(rf"^{_SUBJECT}(?:should not|shouldn'?t)\b", low):
        return PITFALL if _GENERAL_OBJECT.search(low) else None
    if re.match(rf"^{_SUBJECT}{_MODAL}always\b", low):
        return None if soft and soft.start() < low.find("always") else CONVENTION
    if re.match(r"^(?:make sure|be sure|remember to|ensure|the rule is|our rule is)\b", low):
        return CONVENTION if _general(low) else None
    if re.match(r"^(?:we|you)\s+(?:must|have to|need to)\b", low):
        return CONVENTION if _general(low) else None
    if re.match(r"^(?:be careful|careful|watch out|beware)\b", low):
        return PITFALL if _general(low) else None
    if re.match(r"^(?:before|after|prior to|whenever|every time|each time|any time)\b", low):
        return _conditional(low, first_clause)
    verb = low.split(" ", 1)[0]
    if verb in _VERBS and _general(low) and not first_clause.endswith("ed"):
        return CONVENTION
    return None


def _general(low: str) -> bool:
    return bool(_GENERAL_OBJECT.search(low) or _GENERAL_WORD.search(low))


def _conditional(low: str, first_clause: str) -> LessonKind | None:
    """ "Before a deploy, drain the queue": a general condition, then an imperative (or "we
    drain"); "after the deploy the api was slow" is a report."""
    if not _GENERAL_OBJECT.match(low) and not low.startswith(("whenever", "every", "each", "any")):
        return None
    rest = low[len(first_clause) :].lstrip(" ,:—–-")
    if not rest:  # no comma: "before deploying we drain the queue"
        parts = re.split(r"\s+(?=(?:we|you)\s)", low, maxsplit=1)
        rest = parts[1] if len(parts) == 2 else ""
    rest = re.sub(rf"^{_SUBJECT}", "", rest)
    head = rest.split(" ", 1)[0] if rest else ""
    if head in ("never", "don't", "dont") or rest.startswith("do not"):
        return PITFALL
    if head in ("always", "first") or head in _VERBS:
        return CONVENTION
    return None


def _line(body: str) -> str:
    """The lesson as the person put it: one line, capitalised, without the closing stop and
    without `[` `]` (they would read as metadata)."""
    flat = " ".join(body.split()).rstrip(" .!;,").replace("[", "(").replace("]", ")")
    return flat[:1].upper() + flat[1:]
