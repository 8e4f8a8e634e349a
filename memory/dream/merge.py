"""Tidy's duplicate merge: one fact said twice (in other words, within or across files) is kept
once, and the copy merged away is recorded in forgotten.md as `merged into <path>` with its
source, so nothing said is lost without a trace.

Entries that each name an identifier the other lacks (an incident id, a host, a ticket: see
memory/facts/contradictions.py) are never compared: they are about two things. Without Claude, two
entries merge only when they are provably one statement (memory/facts/statements.py: the same
words in the same roles, the same polarity, the same quantities, no antonym across). A pair that
is close but not provably one (its content words match above facts.SAME with no conflict, or it
makes the same checkable claims: the same file, pull request and state, URL, one saying most of
what the other does) is a *possible duplicate*: listed in the
digest for a person to merge with one click (`merge_pair`), never merged by the night alone.
With Claude (`confirm`), every candidate pair, provable or possible, is merged only on Claude's
clear "same"; an error keeps both.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

import memory.dream.checkable_claims as cl
import memory.facts.comparison as facts
import memory.facts.tombstones as tombstones
import memory.trust.standing as standing
from memory import format as fmt
from memory.dream.context import DREAM_BY, Context, StepResult
from memory.dream.same_thing import BLOCK, candidates, is_ident
from memory.facts import statements
from memory.facts.lexicon import NEGATIONS, NUMBER_WORDS
from memory.format import lines as textlines
from memory.git.batch import Author, WriteResult
from memory.git.store import Store
from memory.notes import INBOX
from memory.writes.operations import AddTombstone, Operation, RemoveEntry, ReplaceEntry

Confirm = Callable[[str, str], bool]  # (older text, newer text) → the same fact?
_DIGIT = re.compile(r"\d")
_SEP = re.compile(r"[_/#.-]+")
_RAW = re.compile(r"[a-z0-9](?:[a-z0-9_/#.-]*[a-z0-9])?")
# negations spelled several ways are one key ("no longer logs" / "stopped logging")
_FOLD = dict.fromkeys([*NEGATIONS, "stopped", "stops", "longer", "fails", "failed"], "not")
CLAIM_OVERLAP = 0.5  # same claims: the shorter says at least this share of the longer's words
MAX_POSSIBLE = 50  # possible duplicates kept for the digest per night (it shows the first few)


@dataclass(frozen=True)
class Possible:
    """Two entries that may say one fact: for a person (the digest's Merge button) to decide."""

    path: str
    text: str
    other_path: str
    other_text: str
    why: str


class _Item:
    """One entry to compare; its comparable forms are worked out only when it is compared (a
    night looks at every entry, and most are in no candidate pair). Slotted, its keys a tuple:
    a night holds one per entry of the memory (670,000 at 100,000 files). While candidate pairs
    are sought it holds its file and line, not the parsed entry (`items`); the entries of the
    few in a pair are read again from their lines (`resolve`)."""

    __slots__ = ("_claims", "_entry", "_fact", "_idents", "keys", "line", "path")

    def __init__(self, path: str, entry: fmt.Entry, *, keep: bool = True) -> None:
        self.path = path
        self.line = entry.line
        self._entry = entry if keep else None
        self.keys = tuple(_keys(entry.text))  # every item's: `candidates` reads them all
        self._idents: frozenset[str] | None = None
        self._fact: facts.Fact | None = None
        self._claims: frozenset[str] | None = None

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
    def claims(self) -> frozenset[str]:
        if self._claims is None:
            self._claims = _claim_keys(self.entry)
        return self._claims

    @property
    def idents(self) -> frozenset[str]:
        """The identifiers among the keys (codes with a digit: "billing-806", "inc-1042"; not
        plain numbers, quantities or times), as memory/facts/contradictions.py reads them."""
        if self._idents is None:
            self._idents = frozenset(filter(is_ident, self.keys))
        return self._idents


def _keys(text: str) -> set[str]:
    """Cheap blocking keys: the words cut to 5 letters (inflections mostly agree there), codes
    with digits whole ("billing-806", "acme/api#12"), clock times as HH:MM, number words as
    digits, stop words out."""
    text = text.lower()
    clock: list[str] = []
    if _DIGIT.search(text):
        text, clock = facts.times(text)
    keys: set[str] = set().union(*map(_word_keys, _RAW.findall(text)))
    if clock:
        keys.update(c for c in clock if c not in facts.STOP)
    return keys


@lru_cache(maxsize=65536)
def _word_keys(w: str) -> tuple[str, ...]:
    """One word's blocking keys (`_Item.keys`), stop words out. Cached: a memory of thousands
    of entries repeats its vocabulary, and every entry is keyed each night."""
    if w.isalpha():
        key = str(NUMBER_WORDS[w]) if w in NUMBER_WORDS else _FOLD.get(w, w[:5])
        return () if key in facts.STOP else (key,)
    if _DIGIT.search(w):  # a code ("billing-806", "acme/api#12"): most words seen only once
        return () if w in facts.STOP else (w,)
    # "on-call", "read-only": the words
    return tuple(k for k in (p[:5] for p in _SEP.split(w) if p) if k not in facts.STOP)


def _claim_keys(entry: fmt.Entry) -> frozenset[str]:
    """The checkable claims the entry's text makes (cited sources and links aside: two facts
    from one Slack thread are still two facts)."""
    if "/" not in entry.text and "#" not in entry.text:
        return frozenset()
    found = cl.find(entry.text)
    return frozenset(f"{c.kind}:{c.key}:{c.state}" for c in found if c.kind != cl.LINK)


def items(ctx: Context, paths: list[str]) -> list[_Item]:
    """Top-level entries of `paths` (nested ones belong with their parent: never merged), but
    not those an earlier step wrote tonight (they merge the next night). A file is parsed here
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
            if top and not ctx.settled(path, e) and not (proposed and _pending(e)):
                out.append(_Item(path, e, keep=False))
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
    """SAME (provably one statement), POSSIBLE or DIFFERENT; the same claims with most words
    shared make a possible pair (never a provable one: two facts can cite one pull request)."""
    verdict, why = statements.judge(a.entry.text, b.entry.text)
    if verdict == statements.DIFFERENT and a.claims and a.claims == b.claims:
        shared = len(a.fact.words & b.fact.words)
        close = shared >= CLAIM_OVERLAP * min(len(a.fact.words), len(b.fact.words)) > 0
        sa, sb = statements.statement(a.entry.text), statements.statement(b.entry.text)
        if close and facts.conflict(a.fact, b.fact) is None and statements.conflict(sa, sb) is None:
            return statements.POSSIBLE, "the same claims, most words shared"
    return verdict, why


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
    ctx: Context, out: StepResult, paths: list[str], budget: int, confirm: Confirm | None
) -> tuple[list[Operation], int]:
    """Operations merging duplicates among `paths`, and how many entries they remove."""
    found = items(ctx, paths)
    possible: list[Possible] = []
    pairs = candidates(found)
    resolve(ctx, found, {i for pair in pairs for i in pair})
    groups = _groups(found, pairs, out, confirm, possible, ctx.apart)
    out.facts["possible"] = possible[:MAX_POSSIBLE]
    removes: list[Operation] = []
    others: list[Operation] = []
    removed = 0
    today = ctx.today.isoformat()
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


def verdict(a: str, b: str) -> tuple[statements.Verdict, str]:
    """What tidy makes of two entry texts met as a candidate pair (bench/duplicates.py)."""
    ia, ib = (_Item("", fmt.Entry(line=0, indent=0, marker="-", text=t, meta=())) for t in (a, b))
    if not _near(ia, ib):
        return statements.DIFFERENT, "far apart, or about two things"
    return _verdict(ia, ib)


def _near(a: _Item, b: _Item) -> bool:
    """The cheap keys overlap enough to be worth the full comparison, and the two are about
    one thing: entries that each name an identifier the other lacks ("billing-806" /
    "billing-807", INC-1042 / INC-1043) are two facts, not one said twice."""
    shared = len(set(a.keys).intersection(b.keys))
    if shared < BLOCK * (len(a.keys) + len(b.keys) - shared):
        return False
    return _one_thing(a, b)


def _one_thing(a: _Item, b: _Item) -> bool:
    ids_a, ids_b = a.idents, b.idents
    return not (ids_a - ids_b and ids_b - ids_a)


def _agrees(keep: _Item, m: _Item) -> bool:
    a, b = statements.statement(keep.entry.text), statements.statement(m.entry.text)
    return facts.conflict(keep.fact, m.fact) is None and statements.conflict(a, b) is None


def _groups(
    found: list[_Item],
    pairs: list[tuple[int, int]],
    out: StepResult,
    confirm: Confirm | None,
    possible: list[Possible],
    apart: frozenset[str] = frozenset(),
) -> list[list[_Item]]:
    """The entries that say the same fact, grouped (union-find over candidate pairs); the pairs
    that may be one fact but are not provably so (without Claude) go to `possible`, and so do
    pairs holding an entry a person un-merged (`apart`): only a person merges those again."""
    members = sorted({i for pair in pairs for i in pair})
    parent = {i: i for i in members}  # only entries in a pair: the rest are groups of one

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, j in pairs:
        if root(i) == root(j) or not _near(found[i], found[j]):
            continue
        if _same(found[i], found[j], out, confirm, possible, apart):
            parent[root(j)] = root(i)
    groups: dict[int, list[_Item]] = defaultdict(list)
    for i in members:  # a list per entry of the memory was 25 MB at 30,000 files
        groups[root(i)].append(found[i])
    return list(groups.values())


def _same(
    a: _Item,
    b: _Item,
    out: StepResult,
    confirm: Confirm | None,
    possible: list[Possible],
    apart: frozenset[str],
) -> bool:
    """Whether the night merges the candidate pair `a`, `b`; a pair it may not merge alone
    goes to `possible`. A pair holding an entry a person un-merged is a person's to merge
    again (not the rule's, not Claude's)."""
    verdict, why = _verdict(a, b)
    if verdict == statements.DIFFERENT:
        return False
    undone = bool(apart and apart & {fmt.fact_key(a.entry.text), fmt.fact_key(b.entry.text)})
    if undone:
        verdict, why = statements.POSSIBLE, "a person undid a merge of these before"
    older, newer = sorted((a, b), key=lambda it: it.entry.get("added") or "")
    if confirm is not None and not undone:
        if not confirm(older.entry.text, newer.entry.text):
            out.body.append(f"- not merged (Claude: different facts): {newer.entry.text!r}")
            return False
    elif verdict == statements.POSSIBLE:
        possible.append(Possible(older.path, older.entry.text, newer.path, newer.entry.text, why))
        return False
    return True


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
