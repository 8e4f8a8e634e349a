"""When two entries are provably one statement, and when they may be.

Tidy merges without asking anyone only what it can show is the same statement (issue 26): both
read as the same sequence of words once each is reduced to its canonical form.

- Case, Unicode look-alikes, articles, forms of "be"/"have"/"do", and a few empty words ("that",
  "there", "also", "at", "of") are dropped; every other word stays, in its place: prepositions and
  conjunctions ("by", "and", "from", "to", "than", "over", "into", "off") included, so "CVS was
  acquired by Revco" is never "Revco was acquired by CVS" and "getting off" is never "getting into".
- Negations are read over a real lexicon (no, not, n't, never, none, nobody, nothing, without,
  cannot, "fails to", "stopped …ing", "no longer"); they stay in place as words.
- Quantities: numbers written as words or digits are one ("two" = "2", "twenty-five" = "25",
  "1,000" = "1000"); units have one spelling ("5 min" = "5 minutes" = "5m"); clock times one
  ("10am" = "10:00").
- Words are stemmed (plurals and tenses fold) and a short table folds spellings of one thing
  ("db"/"database", "on call"/"on-call", "hand over"/"handover"); near-synonyms ("rose"/"soared",
  "often"/"always") do not fold.
- A simple passive ("X was acquired in 1997 by Y") reads as its active ("Y acquired X in 1997"),
  roles kept.
- Irregular forms take their base ("ran" = "run", "children" = "child", memory/facts/lexicon.py)
  and the items of a list of single words are in sorted order ("redis, postgres and kafka" =
  "kafka, postgres and redis"; two items only where the list ends the clause).

`judge(a, b)` says SAME (merge), DIFFERENT (a number, the polarity or an antonym differs, or the
words are far apart) or POSSIBLE (close but not provably one statement: a person or Claude
decides). Pure: no I/O.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal

import regex
import snowballstemmer

import memory.facts.comparison as facts
import memory.format.folding as folding
from memory import format as fmt
from memory.facts.lexicon import IRREGULAR, NEGATIONS, NUMBER_WORDS, OPPOSITES, SCALES, UNITS

Verdict = Literal["same", "possible", "different"]
SAME: Final = "same"
POSSIBLE: Final = "possible"
DIFFERENT: Final = "different"
MIN_WORDS = 3  # fewer words say too little to show anything


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_EMPTY = _words(
    "a an the is are was were be been being am do does did has have had will shall that "
    "which who there it its this these those at of also just really very please currently "
    "now our we us here"
)
_BE = _words("is are was were be been being am")
_IRREGULAR = _words(
    "made built written run sent taken given held kept set put bought sold won lost found "
    "told paid caught led hit cut shut beaten seen done known shown owned begun broken "
    "chosen driven eaten fallen forgotten frozen gotten hidden ridden risen spoken stolen "
    "sworn thrown woken worn drawn grown flown blown understood brought thought taught "
    "read left met hung struck spent lent bent sought fought bound ground wound dealt "
    "meant felt"
)
_AFTER_AGENT = _words(
    "in on at during for after before since until from to with without via into over "
    "under when while because every each"
)
# Spellings of one thing (not near-synonyms: those are for a person or Claude to judge).
SPELLINGS = {
    "db": "database",
    "dbs": "database",
    "repo": "repository",
    "repos": "repository",
    "config": "configuration",
    "configs": "configuration",
    "k8s": "kubernetes",
    "prod": "production",
    "handoff": "handover",
    "oncall": "on-call",
    "okay": "ok",
    "e-mail": "email",
    "approx": "approximately",
}
# (a substring without which the pattern cannot match, the pattern, its replacement): the
# substring test skips most patterns for most texts (tidy reads tens of thousands a night)
_PHRASES = (
    ("call", re.compile(r"\bon call\b"), "on-call"),
    ("hand", re.compile(r"\bhand(?:s|ed|ing)? (?:over|off)\b"), "handover"),
    ("no ", re.compile(r"\bno longer\b"), "nolonger"),
    ("no ", re.compile(r"\bno one\b"), "nobody"),
    ("stop", re.compile(r"\bstop(?:s|ped|ping)? (\w+ing)\b"), r"nolonger \1"),
    ("fail", re.compile(r"\bfail(?:s|ed|ing)? to\b"), "not"),
    ("can", re.compile(r"\bcan ?not\b"), "can not"),
    ("won", re.compile(r"\bwon't\b|\bwont\b"), "will not"),
    ("can", re.compile(r"\bcan't\b|\bcant\b"), "can not"),
    ("n't", re.compile(r"n't\b"), " not"),
    ("'", re.compile(r"'(?:s|re|ll|ve|m|d)\b"), ""),
    (",", re.compile(r"(?<=\d),(?=\d{3}\b)"), ""),
    ("%", re.compile(r"(\d)\s*%"), r"\1 percent"),
)
# a list of one-word items: three or more with commas anywhere ("redis, postgres and kafka"),
# two where nothing follows them but the end, a stop or a preposition ("slack and pagerduty."):
# "a beat b and c beat d" is no list
_ITEM = r"[\w][\w.-]*"
_LIST = re.compile(
    rf"\b({_ITEM}(?:\s*,\s*{_ITEM})+),?\s+(and|or)\s+({_ITEM})\b"
    rf"|\b({_ITEM})\s+(and|or)\s+({_ITEM})(?=\s*(?:$|[.;:,!?)]|\s(?:in|on|at|for|to|from|with|"
    r"by|during|after|before|since|until|under|over|every|each)\b))"
)
_TOKEN = regex.compile(r"[\p{L}\p{N}][\p{L}\p{N}\p{M}]*(?:[-./_][\p{L}\p{N}][\p{L}\p{N}\p{M}]*)*")
_NUM = re.compile(r"\d+(?:\.\d+)?")
_NUM_UNIT = re.compile(r"(\d+(?:\.\d+)?)([a-z]+)")
_STEM = snowballstemmer.stemmer("english")
# Negation words keep their own spelling; each counts toward the polarity.
_NEG_WORDS = NEGATIONS | {"nolonger"}


@lru_cache(maxsize=65536)
def _stem(word: str) -> str:
    if not word.isascii() or not word.isalpha():
        return word
    return str(_STEM.stemWord(word))


_OPPOSITE: dict[str, set[str]] = {}
for _a, _b in OPPOSITES:
    _OPPOSITE.setdefault(_stem(_a), set()).add(_stem(_b))
    _OPPOSITE.setdefault(_stem(_b), set()).add(_stem(_a))


@dataclass(frozen=True, eq=False)
class Statement:
    """An entry's text reduced to its canonical word sequence."""

    tokens: tuple[str, ...]  # in reading order (numbers as digits, negations kept)
    active: tuple[str, ...] | None  # the same, a simple passive read as its active
    numbers: tuple[str, ...]  # sorted
    negations: int
    words: frozenset[str]  # the tokens as a set


def _numbers(words: list[str]) -> list[str]:
    """Number words folded into digits ("twenty five" → "25", "two hundred" → "200")."""
    out: list[str] = []
    i = 0
    while i < len(words):
        w = words[i]
        if w in NUMBER_WORDS or (w in SCALES and out and _NUM.fullmatch(out[-1])):
            value = 0
            seen = False
            while i < len(words):
                part = words[i].split("-")
                if all(p in NUMBER_WORDS for p in part):
                    value += sum(NUMBER_WORDS[p] for p in part)
                elif words[i] in SCALES and (seen or value):
                    value = max(value, 1) * SCALES[words[i]]
                elif (
                    words[i] == "and"
                    and seen
                    and i + 1 < len(words)
                    and words[i + 1] in NUMBER_WORDS
                ):
                    pass  # "one hundred and five"
                else:
                    break
                seen = True
                i += 1
            if seen:
                if value == 0 and w in SCALES and out and _NUM.fullmatch(out[-1]):
                    out[-1] = str(int(float(out[-1]) * SCALES[w]))
                else:
                    out.append(str(value))
                continue
        if "-" in w and all(p in NUMBER_WORDS for p in w.split("-")):
            out.append(str(sum(NUMBER_WORDS[p] for p in w.split("-"))))
        elif w in SCALES and out and _NUM.fullmatch(out[-1]):
            out[-1] = str(int(float(out[-1]) * SCALES[w]))
        else:
            out.append(w)
        i += 1
    return out


def _read(text: str) -> list[str]:
    """The words of `text`, folded, phrases and numbers normalised (nothing dropped yet)."""
    body, _ = fmt.split_metadata(text.strip())
    if body[:2] in ("- ", "* ", "+ "):
        body = body[2:]
    body, clock = (
        facts.times(body.replace("’", "'")) if any(c.isdigit() for c in body) else (body, [])
    )
    plain = folding.fold(body.replace("’", "'"))
    for needle, pattern, repl in _PHRASES:
        if needle in plain:
            plain = pattern.sub(repl, plain)
    if " and " in plain or " or " in plain:
        plain = _LIST.sub(_sorted_list, plain)
    raw: list[str] = []
    for w in _TOKEN.findall(plain):
        m = _NUM_UNIT.fullmatch(w)
        if m and m.group(2) in UNITS:
            raw += [m.group(1), m.group(2)]
        else:
            raw.append(w)
    out = _numbers(raw)
    return out + clock if clock else out


def _sorted_list(m: re.Match[str]) -> str:
    """A list's items in sorted order, joined as written: the order of a list says nothing."""
    if m.group(1) is not None:
        items = [*re.split(r"\s*,\s*", m.group(1)), m.group(3)]
        conj = m.group(2)
    else:
        items, conj = [m.group(4), m.group(6)], m.group(5)
    items.sort()
    return f"{', '.join(items[:-1])} {conj} {items[-1]}"


def _canon(word: str) -> str:
    if _NUM.fullmatch(word):
        return word.lstrip("0") or "0" if "." not in word else word
    if word in _NEG_WORDS:
        return (
            "nolonger"
            if word == "nolonger"
            else ("not" if word in ("nt", "cant", "cannot") else word)
        )
    word = UNITS.get(word, word)
    word = SPELLINGS.get(word, word)
    return _stem(IRREGULAR.get(word, word))


def _passive(raw: list[str]) -> tuple[str, ...] | None:
    """ "S be V-ed M by A" read as "A V S M" (canonical words), when the text is that shape."""
    for i in range(1, len(raw) - 2):
        if raw[i] not in _BE:
            continue
        verb = raw[i + 1]
        if not (verb.endswith(("ed", "en")) or verb in _IRREGULAR):
            return None
        rest = raw[i + 2 :]
        if "by" not in rest:
            return None
        cut = rest.index("by")
        subject, middle, agent = raw[:i], rest[:cut], rest[cut + 1 :]
        # the agent ends where a preposition starts what follows it ("by Y in 1997")
        end = next((k for k, w in enumerate(agent) if w in _AFTER_AGENT), len(agent))
        agent, tail = agent[:end], agent[end:]
        if not subject or not agent:
            return None
        words = [*agent, verb, *subject, *middle, *tail]
        return tuple(_canon(w) for w in words if w not in _EMPTY)
    return None


@lru_cache(maxsize=65536)
def statement(text: str) -> Statement:
    raw = _read(text)
    tokens = tuple(_canon(w) for w in raw if w not in _EMPTY)
    numbers = tuple(sorted(t for t in tokens if _NUM.fullmatch(t)))
    negations = sum(1 for t in tokens if t in _NEG_WORDS)
    return Statement(tokens, _passive(raw), numbers, negations, frozenset(tokens))


def conflict(a: Statement, b: Statement, *, numbers: bool = True) -> str | None:
    """Why `a` and `b` cannot be one statement whatever else they share, or None (their
    numbers not compared when `numbers` is false)."""
    if numbers and a.numbers != b.numbers:
        return "numbers differ"
    if a.negations % 2 != b.negations % 2:
        return "one negates the other"
    only_a, only_b = a.words - b.words, b.words - a.words
    for w in only_a:
        hit = _OPPOSITE.get(w, set()) & only_b
        if hit:
            return f"opposite words ({w!r}, {min(hit)!r})"
    return None


def _forms(s: Statement) -> set[tuple[str, ...]]:
    return {s.tokens} | ({s.active} if s.active else set())


def judge(a: str, b: str) -> tuple[Verdict, str]:
    """SAME when provably one statement, DIFFERENT when something sets them apart or they say
    different things, else POSSIBLE; and why."""
    sa, sb = statement(a), statement(b)
    if len(sa.tokens) < MIN_WORDS or len(sb.tokens) < MIN_WORDS:
        return DIFFERENT, "too few words to compare"
    why = conflict(sa, sb)
    if why is not None:
        return DIFFERENT, why
    if _forms(sa) & _forms(sb):
        return SAME, "the same words in the same roles"
    fa, fb = facts.fact(a), facts.fact(b)
    close = facts.similarity(fa, fb) >= facts.SAME
    if close and facts.conflict(fa, fb) is None:
        return POSSIBLE, "close in words, not provably one statement"
    return DIFFERENT, facts.conflict(fa, fb) or "different words"


def apart(a: str, b: str) -> str | None:
    """Why `a` and `b` are not one fact even to be offered as a possible duplicate, or None:
    each states a number the other does not (one stating more is not apart), one negates the
    other, an antonym across, or terms swapped around an order word ("from X to Y" / "from Y
    to X", before, than, over, instead, until)."""
    sa, sb = statement(a), statement(b)
    na, nb = set(sa.numbers), set(sb.numbers)
    if na - nb and nb - na:
        return "numbers differ"
    if sa.negations != sb.negations:  # "no boy … and no man" / "the boy … and the man"
        return "one negates what the other does not"
    why = conflict(sa, sb, numbers=False)
    if why is not None:
        return why
    fa, fb = facts.fact(a), facts.fact(b)
    for word in fa.sides.keys() & fb.sides.keys():
        (left_a, right_a), (left_b, right_b) = fa.sides[word], fb.sides[word]
        if left_a & right_b and right_a & left_b:
            return f"terms swapped around {word!r}"
    return None


def same(a: str, b: str) -> bool:
    return judge(a, b)[0] == SAME
