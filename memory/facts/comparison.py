"""When two entries state the same fact, and when they must not be taken for one.

Words come from `format.normalise` (so its Unicode handling applies here too), then: stop words
dropped, a small synonym table of the words teams use for the same thing ("frozen"/"freeze",
"wipe"/"reset", "paged"/"page", "hands over"/"handover"), Snowball stemming (plurals and tenses
fold: "releases"/"release", "paused"/"pause"), and times written either way ("10am", "10:00").

Two entries are the same fact (`same`) when their content words overlap enough (Jaccard at least
SAME, measured on tests/data/facts/pairs.tsv by bench/duplicates.py) and nothing says otherwise:

- numbers differ ("5 retries" / "3 retries", "10:00" / "11:00"; "two" is "2");
- one negates the other ("not", "never", "no longer", "stopped", "n't" counted on each side);
- the order of the terms around an order word differs ("restart the cache before the API" /
  "restart the API before the cache"; before/after, "from X to Y", than, instead of, over,
  until), or only one of them says an order;
- one says a word the other lacks and the other its opposite ("enabled"/"disabled",
  "open"/"closed"; memory/facts/lexicon.py).

Tidy's merge asks more than this (memory/facts/statements.py); this looser rule finds candidates and
serves the gate and the tombstones.

`covers(stone, text)` is the tombstone rule: every content word of a forgotten fact is in the new
text, and the new text does not negate it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import snowballstemmer

import memory.facts.lexicon as lexicon
from memory import format as fmt


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


SAME = 0.75  # Jaccard of content words from which two entries are one fact (bench/duplicates.py)
MIN_WORDS = 3  # fewer content words say too little to compare

STOP = _words(
    "a an and are as at be been being by for from in into is it its of on or our so that the "
    "their them there these this those to was we were will with who what when where which "
    "while every each all any some has have had do does did can could should would must may "
    "might also just still now then than very really since because due via per about again "
    "only please note nobody anyone someone everyone no during within across get gets got "
    "come comes came make makes made cause causes caused lead leads result results happen"
)
# Negations as counted here (the tombstones' rule: "nobody acts on it since it can be ignored"
# still says the forgotten fact); tidy's merge reads the full lexicon (memory/facts/statements.py).
NEGATIONS = _words("not never stopped stop nt cannot cant dont doesnt isnt wont")
# Order words: the terms on their left and right must be the same in both entries.
ORDER = ("before", "after", "than", "instead", "over", "until", "from", "to")
# Phrases first (they may hold a stop word), then single words; both sides are normalised text.
PHRASES = (
    ("no longer", "nolonger"),
    ("hands over", "handover"),
    ("hand over", "handover"),
    ("handed over", "handover"),
    ("hand off", "handover"),
    ("rotation changes", "handover"),
    ("rotation change", "handover"),
    ("rotates", "handover"),
    ("on call", "oncall"),
    ("can be ignored", "ignore"),
    ("black friday", "blackfriday"),
    ("go live", "release"),
)
SYNONYMS = {
    "frozen": "freeze",
    "freezes": "freeze",
    "paused": "freeze",
    "pause": "freeze",
    "pauses": "freeze",
    "halt": "freeze",
    "halted": "freeze",
    "wipe": "reset",
    "wiped": "reset",
    "wipes": "reset",
    "paged": "page",
    "pages": "page",
    "paging": "page",
    "pager": "page",
    "handoff": "handover",
    "handovers": "handover",
    "rotation": "handover",
    "deploy": "release",
    "deploys": "release",
    "deployed": "release",
    "deployment": "release",
    "deployments": "release",
    "ship": "release",
    "ships": "release",
    "shipped": "release",
    "releases": "release",
    "lives": "live",
    "located": "live",
    "stored": "live",
    "kept": "live",
    "keeps": "live",
    "ignored": "ignore",
    "ignorable": "ignore",
    "mute": "ignore",
    "muted": "ignore",
    "db": "database",
    "postgres": "database",
    "repo": "repository",
    "config": "configuration",
    "settings": "configuration",
    "setting": "configuration",
    "mondays": "monday",
    "tuesdays": "tuesday",
    "wednesdays": "wednesday",
    "thursdays": "thursday",
    "fridays": "friday",
}
_TIME = re.compile(r"\b(\d{1,2})(?:[:.h](\d{2}))?\s*(am|pm)\b|\b(\d{1,2})[:h](\d{2})\b", re.I)
# what every clock time holds ("10:30", "10h30", "10am", "10 pm"): most texts lack it, and
# this scan is several times cheaper than _TIME's (each night keys every entry)
_TIME_HINT = re.compile(r"\d[:h]\d|[ap]m\b", re.I)
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_STEM = snowballstemmer.stemmer("english")


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    """Snowball's English stem of an ASCII word; words of other scripts stay as they are."""
    if not word.isascii() or not word.isalpha():
        return word  # other scripts and codes are kept as written (after normalise)
    return str(_STEM.stemWord(word))


@dataclass(frozen=True, eq=False)
class Fact:
    """An entry's text reduced for comparison."""

    words: frozenset[str]  # content words: stemmed, synonyms folded, stop and order words out
    sequence: tuple[str, ...]  # the same words in reading order, order words kept
    numbers: frozenset[str]
    negations: int
    # order word → the content words on its left and right (first occurrence)
    sides: dict[str, tuple[frozenset[str], frozenset[str]]]


def times(text: str) -> tuple[str, list[str]]:
    """`text` with its clock times taken out, and those times as HH:MM ("10am" = "10:00")."""
    found: list[str] = []
    if not _TIME_HINT.search(text):
        return text, found

    def one(m: re.Match[str]) -> str:
        if m.group(3):
            hour, minute = int(m.group(1)), int(m.group(2) or 0)
            hour = hour % 12 + (12 if m.group(3).lower() == "pm" else 0)
        else:
            hour, minute = int(m.group(4)), int(m.group(5))
        found.append(f"{hour:02d}:{minute:02d}")
        return " "

    return _TIME.sub(one, text), found


@lru_cache(maxsize=65536)
def _token(raw: str) -> tuple[str, str]:
    """What one normalised word is to a fact: a negation, a number, a word (stemmed, synonyms
    folded; order words as they are) or nothing (a stop word). Cached: vocabularies repeat."""
    if raw in NEGATIONS or raw == "nolonger" or (raw.endswith("nt") and raw[:-2] in _AUX):
        return "neg", ""
    if _NUMBER.fullmatch(raw):
        return "num", raw.lstrip("0") or "0"
    if raw in lexicon.NUMBER_WORDS:  # "two" = "2"
        return "num", str(lexicon.NUMBER_WORDS[raw])
    if raw in ORDER:
        return "word", raw
    if raw in STOP:
        return "stop", ""
    return "word", _stem(SYNONYMS.get(raw, raw))


def word_of(raw: str) -> str:
    """The content word a normalised word is in a fact (stemmed, synonyms folded), or '' for a
    number, a negation or a stop word: a cheap way to tell whether a text can hold a fact's words
    (memory/dream/plain_git.py), without working out the whole fact."""
    kind, value = _token(raw)
    return value if kind == "word" else ""


@lru_cache(maxsize=65536)
def fact(text: str) -> Fact:
    """The comparable form of an entry's text (metadata and bullet ignored)."""
    body, _ = fmt.split_metadata(text.strip())
    body = body.replace("'", "").replace("’", "")
    body, clock = times(body) if any(c.isdigit() for c in body) else (body, [])
    plain = f" {fmt.normalise(body)} "
    for phrase, word in PHRASES:
        plain = plain.replace(f" {phrase} ", f" {word} ")
    seq: list[str] = []
    numbers = set(clock)
    negations = 0
    for raw in plain.split():
        kind, value = _token(raw)
        if kind == "neg":
            negations += 1
        elif kind == "num":
            numbers.add(value)
        elif kind == "word":
            seq.append(value)
    if not ("from" in seq and "to" in seq[seq.index("from") :]):
        seq = [w for w in seq if w not in ("from", "to")]  # order only as "from X to Y"
    words = frozenset(w for w in seq if w not in ORDER)
    sides = {w: _sides(tuple(seq), seq.index(w)) for w in ORDER if w in seq}
    return Fact(words, tuple(seq), frozenset(numbers), negations, sides)


_AUX = _words("do does did is are was were wo ca could should would has have had")
_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in lexicon.OPPOSITES:
    _OPPOSITE.setdefault(_stem(_a), set()).add(_stem(_b))
    _OPPOSITE.setdefault(_stem(_b), set()).add(_stem(_a))


def similarity(a: Fact, b: Fact) -> float:
    """Jaccard of the content words (0 when either says too little)."""
    if len(a.words) < MIN_WORDS or len(b.words) < MIN_WORDS:
        return 0.0
    return len(a.words & b.words) / len(a.words | b.words)


def conflict(a: Fact, b: Fact) -> str | None:
    """Why `a` and `b` cannot be one fact whatever their words share, or None."""
    if a.numbers != b.numbers:
        return "numbers differ"
    if (a.negations % 2) != (b.negations % 2):
        return "one negates the other"
    # a word on one side only and its opposite on the other only ("first … last" in both is
    # one sentence said twice, not two opposites)
    only_b = b.words - a.words
    if any(_OPPOSITE.get(w, set()) & only_b for w in a.words - b.words):
        return "opposite words"
    if a.sides.keys() != b.sides.keys():
        return f"only one says {sorted(a.sides.keys() ^ b.sides.keys())[0]!r}"
    for word, sides in a.sides.items():
        if sides != b.sides[word]:
            return f"different order around {word!r}"
    return None


def _sides(seq: tuple[str, ...], at: int) -> tuple[frozenset[str], frozenset[str]]:
    def plain(words: tuple[str, ...]) -> frozenset[str]:
        return frozenset(w for w in words if w not in ORDER)

    return plain(seq[:at]), plain(seq[at + 1 :])


def same(a: str, b: str, threshold: float = SAME) -> bool:
    """`a` and `b` state the same fact in other words (and nothing says they differ)."""
    fa, fb = fact(a), fact(b)
    return similarity(fa, fb) >= threshold and conflict(fa, fb) is None


def covers(stone: str, text: str) -> bool:
    """`text` holds every content word of the forgotten fact `stone` and does not negate it:
    the forgotten fact said again in more words."""
    fs, ft = fact(stone), fact(text)
    if len(fs.words) < MIN_WORDS or not fs.words <= ft.words:
        return False
    return fs.numbers <= ft.numbers and fs.negations % 2 == ft.negations % 2
