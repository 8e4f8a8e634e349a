"""Tidy's duplicate merge: one fact said twice (in other words, within or across files) is kept
once, and the copy merged away is recorded in forgotten.md as `merged into <path>` with its
source, so nothing said is lost without a trace.

Candidate pairs are entries close in meaning (memory/dream/same_thing.py: their terms, rarity
weighted, inflections, synonyms and abbreviations folded); entries that each name an identifier
the other lacks (an incident id, a host, a ticket) are never compared: they are about two things.
Without Claude, a candidate pair merges only when it is provably one statement
(memory/facts/statements.py: the same words in the same roles, up to inflection, tense, voice,
number words and the order of a list; the same polarity, the same quantities, no antonym
across). A candidate pair that is not provably one and has no conflict (`statements.apart`:
numbers each says alone, one negating the other, an antonym across, terms swapped around an
order word) is a *possible duplicate*: kept for the digest, surest first, for a person to merge
with one click (`merge_pair`), never merged by the night alone; with Claude (`confirm`, asked
once per pair: memory/dream/judged.py), merged on its "same", kept apart on its "different".

The keeper is the copy of the strongest standing (memory/trust/standing.py: a person's or an
active entry before an agent's tentative one), then the one that says the most (most content
words), then a topic's over the inbox's, then the oldest; it gets every source. An agent's edit
waiting for a person (`contradicts:`, `refines:`) is never merged: a person settles it. Every
entry merged away counts against tonight's deletion cap (`budget`); groups beyond it wait for
the next night.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

import memory.facts.comparison as facts
import memory.facts.tombstones as tombstones
import memory.trust.standing as standing
from memory import format as fmt
from memory.dream.context import DREAM_BY, Context, StepResult
from memory.dream.judged import PATH as JUDGED
from memory.dream.judged import Judge, Judged, Judgment, key
from memory.dream.same_thing import MEANING, Pair, Weights, candidates, closeness, is_ident
from memory.facts import statements, wording
from memory.facts.lexicon import NUMBER_WORDS
from memory.format import lines as textlines
from memory.git.batch import Author, WriteResult
from memory.git.store import Store
from memory.notes import INBOX
from memory.writes.operations import AddTombstone, Operation, RemoveEntry, ReplaceEntry, WriteFile

JUDGE_CAP = 50  # pairs Claude is asked about a night at most, the surest first; the rest wait
_DIGIT = re.compile(r"\d")
_SEP = re.compile(r"[_/#.-]+")
_RAW = re.compile(r"[a-z0-9](?:[a-z0-9_/#.-]*[a-z0-9])?")
MAX_POSSIBLE = 50  # possible duplicates kept for the digest per night (it shows the first few)


@dataclass
class _Night:
    """What judging tonight's candidate pairs reads and leaves: Claude (`judge`, None without a
    key), its answers so far (`judged`), the questions asked, the possible duplicates."""

    out: StepResult
    today: str
    judge: Judge | None
    judged: Judged
    apart: frozenset[str] = frozenset()
    asked: int = 0
    possible: list[Possible] = field(default_factory=list)


@dataclass(frozen=True)
class Possible:
    """Two entries that may say one fact: for a person (the digest's Merge button) to decide."""

    path: str
    text: str
    other_path: str
    other_text: str
    why: str
    close: float = 0.0  # how close in meaning (same_thing.closeness): the digest lists surest first


class _Item:
    """One entry to compare; its comparable forms are worked out only when it is compared (a
    night looks at every entry, and most are in no candidate pair). Slotted, its keys a tuple:
    a night holds one per entry of the memory (670,000 at 100,000 files). While candidate pairs
    are sought it holds its file and line, not the parsed entry (`items`); the entries of the
    few in a pair are read again from their lines (`resolve`)."""

    __slots__ = ("_entry", "_fact", "_idents", "keys", "line", "path", "settled")

    def __init__(
        self, path: str, entry: fmt.Entry, *, keep: bool = True, settled: bool = False
    ) -> None:
        self.path = path
        self.line = entry.line
        self.settled = settled  # an earlier step wrote it (or a line beside it) tonight
        self._entry = entry if keep else None
        self.keys = tuple(_keys(entry.text))  # every item's: `candidates` reads them all
        self._idents: frozenset[str] | None = None
        self._fact: facts.Fact | None = None

    @property
    def entry(self) -> fmt.Entry:
        if self._entry is None:
            raise LookupError(f"{self.path}:{self.line}: not read again (`resolve`)")
        return self._entry

    @property
    def fact(self) -> facts.Fact:
        if self._fact is None:
            self._fact = facts.fact(self.entry.text)
        return self._fact

    @property
    def idents(self) -> frozenset[str]:
        """The identifiers among the keys (codes with a digit: "billing-806", "inc-1042"; not
        plain numbers, quantities or times), as memory/facts/contradictions.py reads them."""
        if self._idents is None:
            self._idents = frozenset(filter(is_ident, self.keys))
        return self._idents


def _keys(text: str) -> set[str]:
    """The entry's terms, what its meaning is compared by (`_word_keys`): codes with digits
    whole ("billing-806", "acme/api#12"), clock times as HH:MM, number words as digits, stop
    words out."""
    text = text.lower()
    clock: list[str] = []
    if _DIGIT.search(text):
        text, clock = facts.times(text)
    keys: set[str] = set().union(*map(_word_keys, _RAW.findall(text)))
    if clock:
        keys.update(clock)
    return keys


@lru_cache(maxsize=65536)
def _word_keys(w: str) -> tuple[str, ...]:
    """One word's keys (`_Item.keys`): its term (memory/facts/wording.py: stop words out,
    irregular forms, synonyms and abbreviations folded, stemmed), number words as digits, codes
    whole. Cached: a memory of thousands of entries repeats its vocabulary, and every entry is
    keyed each night."""
    if w.isalpha():
        if w in NUMBER_WORDS:
            return (str(NUMBER_WORDS[w]),)
        key = wording.term(w)
        return (key,) if key else ()
    if _DIGIT.search(w):  # a code ("billing-806", "acme/api#12") or a number: whole
        return (w,)
    # "on-call", "read-only": the words
    return tuple(k for k in map(wording.term, (p for p in _SEP.split(w) if p)) if k)


def items(ctx: Context, paths: list[str]) -> list[_Item]:
    """Top-level entries of `paths` (nested ones belong with their parent: never merged); those
    an earlier step wrote tonight are marked `settled` (offered, never merged tonight, so that
    step's commit still reverts alone). A file is parsed here
    without keeping its parse, and its items keep no entry: a night held every entry of the
    memory parsed at once (its text, its metadata: 300 MB at 100,000 files) for the few in a
    candidate pair."""
    out = []
    for path in paths:
        text = ctx.tree.get(path, "")
        doc = ctx.parsed(path) or fmt.parse(text)
        parents = {e.parent for e in doc.entries if e.parent is not None}
        # an agent's edit waiting for a person (`contradicts:`, `refines:`) is theirs to settle
        proposed = "contradicts" in text or "refines" in text
        for e in doc.entries:
            top = e.parent is None and e.line not in parents
            if top and not (proposed and _pending(e)):
                out.append(_Item(path, e, keep=False, settled=ctx.settled(path, e)))
    return out


def _pending(e: fmt.Entry) -> bool:
    return any(k.lower() in standing.AGENT_SHAPED for k, _ in e.meta)


def resolve(ctx: Context, found: list[_Item], which: Iterable[int]) -> None:
    """The entries of `found[i]` for each i of `which`, read again from their lines (the same
    parse as the file's: a top-level bullet is its line alone)."""
    by_path: dict[str, list[_Item]] = defaultdict(list)
    for i in which:
        if found[i]._entry is None:
            by_path[found[i].path].append(found[i])
    for path, waiting in by_path.items():
        lines = textlines.split_keep(ctx.tree.get(path, ""))
        for it in waiting:
            it._entry = fmt.parse_entry(lines[it.line], it.line)


def _verdict(a: _Item, b: _Item) -> tuple[statements.Verdict, str]:
    """SAME (provably one statement), DIFFERENT (something sets them apart) or POSSIBLE, for a
    pair close in meaning."""
    verdict, why = statements.judge(a.entry.text, b.entry.text)
    if verdict == statements.SAME:
        return verdict, why
    apart = statements.apart(a.entry.text, b.entry.text)
    if apart is not None:
        return statements.DIFFERENT, apart
    return statements.POSSIBLE, "close in meaning, not provably one statement"


def _keeper_order(it: _Item) -> tuple[int, int, bool, str, str, int]:
    return (
        -standing.RANK[standing.of(it.entry)],  # the strongest standing stays (a person's fact)
        -len(it.fact.words),
        it.path == INBOX,
        it.entry.get("added") or "9999",
        it.path,
        it.line,
    )


def merge(
    ctx: Context, out: StepResult, paths: list[str], budget: int, judge: Judge | None
) -> tuple[list[Operation], int]:
    """Operations merging duplicates among `paths`, and how many entries they remove."""
    found = items(ctx, paths)
    today = ctx.today.isoformat()
    night = _Night(out, today, judge, Judged(ctx.tree.get(JUDGED)), ctx.apart)
    pairs = candidates(found)
    resolve(ctx, found, {i for j, i, _ in pairs} | {j for j, _, _ in pairs})
    groups = _groups(found, pairs, night)
    night.possible.sort(key=lambda p: -p.close)  # surest first: the digest lists the first few
    out.facts["possible"] = night.possible[:MAX_POSSIBLE]
    removes: list[Operation] = []
    others: list[Operation] = (
        [WriteFile(JUDGED, night.judged.dump())] if night.judged.changed else []
    )
    removed = 0
    for members in sorted(groups, key=lambda m: (m[0].path, m[0].line)):
        if len(members) < 2:
            continue
        members.sort(key=_keeper_order)
        keep, rest = members[0], members[1:]
        # a chain a~b~c may link two that conflict: only what agrees with the keeper goes
        rest = [m for m in rest if _agrees(keep, m)]
        if not rest:
            continue
        if removed + len(rest) > budget:
            out.body.append(f"- merge waits for the cap: {len(rest)} copies of {keep.entry.text!r}")
            continue
        removed += len(rest)
        _merge_into(keep, rest, today, out, removes, others)
    return removes + others, removed


def verdict(a: str, b: str, weight: Weights | None = None) -> tuple[statements.Verdict, str]:
    """What tidy makes of two entry texts (bench/duplicates.py), their terms weighted by
    `weight` (the memory's; by default every term alike): DIFFERENT when they are not close
    in meaning or are about two things, else as for a candidate pair."""
    ia, ib = (_Item("", fmt.Entry(line=0, indent=0, marker="-", text=t, meta=())) for t in (a, b))
    weight = weight or Weights({}, 2)
    mine = set(ia.keys)
    close = closeness(mine, ib.keys, weight, weight.total(mine), weight.total(ib.keys))
    if close < MEANING or not _one_thing(ia, ib):
        return statements.DIFFERENT, "far apart in meaning, or about two things"
    return _verdict(ia, ib)


def _one_thing(a: _Item, b: _Item) -> bool:
    ids_a, ids_b = a.idents, b.idents
    return not (ids_a - ids_b and ids_b - ids_a)


def _agrees(keep: _Item, m: _Item) -> bool:
    a, b = statements.statement(keep.entry.text), statements.statement(m.entry.text)
    return facts.conflict(keep.fact, m.fact) is None and statements.conflict(a, b) is None


def _groups(found: list[_Item], pairs: list[Pair], night: _Night) -> list[list[_Item]]:
    """The entries that say the same fact, grouped (union-find over candidate pairs, the
    surest first); the pairs that may be one fact but are not provably so (and that Claude, if
    asked, did not settle) go to `night.possible`, and so do pairs holding an entry a person
    un-merged (`apart`): only a person merges those again."""
    members = sorted({j for j, _, _ in pairs} | {i for _, i, _ in pairs})
    parent = {i: i for i in members}  # only entries in a pair: the rest are groups of one

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for j, i, close in sorted(pairs, key=lambda p: (-p[2], p[0], p[1])):
        if root(i) != root(j) and _same(found[j], found[i], close, night):
            parent[root(i)] = root(j)
    groups: dict[int, list[_Item]] = defaultdict(list)
    for i in members:  # a list per entry of the memory was 25 MB at 30,000 files
        groups[root(i)].append(found[i])
    return list(groups.values())


def _same(a: _Item, b: _Item, close: float, night: _Night) -> bool:
    """Whether the night merges the candidate pair `a`, `b`: provably one statement, or so
    judged by Claude (asked once per pair, within JUDGE_CAP a night); a pair it may not merge
    goes to `night.possible`. A pair holding an entry a person un-merged is a person's to merge
    again (not the rule's, not Claude's)."""
    verdict, why = _verdict(a, b)
    if verdict == statements.DIFFERENT:
        return False
    older, newer = sorted((a, b), key=lambda it: it.entry.get("added") or "")
    texts = (older.path, older.entry.text, newer.path, newer.entry.text)
    undone = night.apart & {fmt.fact_key(a.entry.text), fmt.fact_key(b.entry.text)}
    if undone:
        night.possible.append(Possible(*texts, "a person undid a merge of these before", close))
        return False
    if a.settled or b.settled:
        night.possible.append(Possible(*texts, "an earlier step wrote one of them tonight", close))
        return False
    if verdict == statements.SAME:
        return True
    said = _ask(older.entry.text, newer.entry.text, night)
    if said is not None and said.same is not None:
        word = "same fact" if said.same else "kept apart"
        night.out.body.append(f"- Claude ({word}): {newer.entry.text!r}: {said.reason}")
        return said.same
    night.possible.append(Possible(*texts, said.reason if said else why, close))
    return False


def _ask(older: str, newer: str, night: _Night) -> Judgment | None:
    """Claude's word on the pair: remembered, else asked (within the cap) and remembered; None
    without a key, past the cap, or on an error (asked again another night)."""
    pair = key(older, newer)
    said = night.judged.get(pair)
    if said is not None or night.judge is None or night.asked >= JUDGE_CAP:
        return said
    night.asked += 1
    said = night.judge(older, newer)
    if said is not None:
        night.judged.put(pair, said, night.today)
    return said


def merge_pair(
    store: Store,
    pair: tuple[str, str, str, str],
    *,
    by: str,
    today: str,
    author: Author,
    key: str,
) -> WriteResult | None:
    """A person's Merge on a possible duplicate (path, text, other path, other text): the fuller
    entry stays with both sources, the other is recorded in forgotten.md as merged into it.
    None when either entry is gone or changed since the digest (nothing is guessed)."""
    path, text, other_path, other_text = pair
    found: list[_Item] = []
    for p, t in ((path, text), (other_path, other_text)):
        doc = fmt.parse(store.read_or_none(p) or "")
        entry = next((e for e in doc.entries if fmt.same_fact(e.text, t)), None)
        if entry is None:
            return None
        found.append(_Item(p, entry))
    if found[0].path == found[1].path and found[0].entry.line == found[1].entry.line:
        return None  # one entry: already merged
    found.sort(key=_keeper_order)
    removes: list[Operation] = []
    others: list[Operation] = []
    out = StepResult("merge")
    _merge_into(found[0], found[1:], today, out, removes, others, by=by)
    short = found[1].entry.text if len(found[1].entry.text) <= 60 else found[1].entry.text[:59]
    return store.write(
        removes + others,
        author=author,
        message=f"merge: {short}\n\n" + "\n".join(out.body),
        key=key,
    )


def _merge_into(
    keep: _Item,
    rest: list[_Item],
    today: str,
    out: StepResult,
    removes: list[Operation],
    others: list[Operation],
    *,
    by: str = DREAM_BY,
) -> None:
    """Remove `rest` (each tombstoned as merged) and give `keep` every source they had."""
    sources = list(dict.fromkeys(s for m in [keep, *rest] for s in m.entry.get_all("source") if s))
    kept = [(k, v) for k, v in keep.entry.meta if k.lower() != "source"]
    meta = tuple([("source", s) for s in sources] + kept)
    for m in rest:
        # removing first: when keeper and copy read the same in one file, the replace below
        # then lands on the line that is left, so one line with every source stays
        removes.append(RemoveEntry(m.path, m.entry.text))
        why = f"{tombstones.MERGED}{keep.path}"
        text, stone = tombstones.entry_for(m.entry, path=m.path, removed=today, by=by, reason=why)
        others.append(AddTombstone(tombstones.PATH, text, stone, title=tombstones.TITLE))
        out.body.append(
            f"- merged {m.path}: {m.entry.text!r} into {keep.path}: {keep.entry.text!r}"
        )
    if meta != keep.entry.meta:
        others.append(ReplaceEntry(keep.path, keep.entry.text, keep.entry.text, meta))
