"""Step 4, tidy: drop expired short-lived entries, repair links, file the inbox, merge duplicates.

Each part works on the tree the previous part left, so their operations compose into one commit:

1. entries marked short-lived (`scope: short-lived`/`transient`, or `ttl: short`) and older than a
   week (`added`) go;
2. a `[[link]]` whose file was renamed follows the rename found in git history; one that leads
   nowhere is dropped from the index (MEMORY.md) and reported elsewhere;
3. an `inbox.md` entry goes under the topic it names: a `[[link]]` to it, a `scope:` path, or
   the file's subject in its words (the same rule as saving a note); failing those, the one
   topic sharing the most (at least two) subject words with it: its file name's parts and its
   title's words ("nightly batch alert" → runbooks/nightly-batch.md, "# nightly batch: alerts");
4. duplicates (provably one statement without Claude; within and across files, never
   opposites: see merge.py) merge into the fullest copy, which keeps every source; the copies
   merged away are recorded in forgotten.md as `merged into <path>`. Pairs that may be one fact
   but are not provably so are left for the digest's Merge button.

Expiries and merges count against the night's deletion cap with the corrections' deletions.
No part touches an entry an earlier step wrote tonight (`Context.settled`): it waits a night, so
the earlier step's commit can still be reverted alone with plain `git revert`.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import timedelta

import memory.facts.tombstones as tombstones
import memory.trust.standing as standing
from memory import format as fmt
from memory.dream import merge, plain_git
from memory.dream.context import Context, StepResult
from memory.dream.select import deletion_cap
from memory.errors import MemoryStoreError, TombstoneConflict, TooLarge
from memory.notes import INBOX, STOP_WORDS, choose_topic
from memory.trust.rules import people_only
from memory.writes.operations import AddEntry, Operation, RemoveEntry, ReplaceEntry

SHORT_LIVED = frozenset({"short-lived", "transient", "temporary", "short", "today", "this-week"})
SUBJECT_WORDS = 2  # subject words a note must share with a topic to be filed there by them
SUBJECT_LETTERS = 4  # shorter words ("api", "job") say too little about which topic
NOT_FILED = ("preferences/", "conventions/")  # instructions and lessons: never a note's home
_NAME = re.compile(r"[\w-]+")
_WORD = re.compile(r"[a-z0-9]+")
_MARKED = re.compile(r"\b(?:scope|ttl|lifetime)\s*:", re.I)
_TOP_BULLET = re.compile(r"^[-*+] ")
# Connective words on top of the notes' stop words: they say nothing about which fact it is.
_STOP = STOP_WORDS | frozenset(
    [
        "we",
        "our",
        "its",
        "has",
        "have",
        "had",
        "will",
        "should",
        "must",
        "can",
        "do",
        "does",
        "come",
        "came",
        "make",
        "made",
        "cause",
        "caused",
        "due",
        "because",
        "lead",
        "result",
        "happen",
    ]
)


def _short_lived(e: fmt.Entry) -> bool:
    marks = {(e.get(k) or "").strip().lower() for k in ("scope", "ttl", "lifetime")}
    return bool(marks & SHORT_LIVED)


def _marked(text: str) -> bool:
    """The file may hold a lifetime mark. ASCII text without any of the keys' letters in a row
    cannot match: the case-blind pattern is searched only in the files that have them (run
    over every file, it was most of expiry's time at 30,000 files)."""
    if text.isascii():
        lowered = text.lower()
        if "scope" not in lowered and "ttl" not in lowered and "lifetime" not in lowered:
            return False
    return _MARKED.search(text) is not None


def expire(ctx: Context, out: StepResult) -> list[Operation]:
    cutoff = (ctx.today - timedelta(days=7)).isoformat()
    cap = deletion_cap(len(ctx.topics()))
    ops: list[Operation] = []
    for path in [*ctx.topics(), INBOX]:
        if not _marked(ctx.tree.get(path, "")):
            continue  # no lifetime marks in the file: nothing to parse
        for e in ctx.doc(path).entries:
            added = e.get("added") or ""
            if _short_lived(e) and added and added < cutoff and not ctx.settled(path, e):
                if ctx.removed >= cap:
                    out.body.append(f"- expiry waits for the cap: {path}: {e.text!r}")
                    continue
                ctx.removed += 1
                ops.append(RemoveEntry(path, e.text))
                out.body.append(f"- expired {path}: {e.text!r} (short-lived, added {added})")
    return ops


def remove_resurrected(ctx: Context, out: StepResult) -> list[Operation]:
    """A forgotten fact a plain git push brought back goes again (within the cap), naming that
    commit; one brought back through hippo (`--force`, a revert) stays (memory/dream/plain_git).
    Looked for in the files changed since the last dream and those where one was found before
    (it may have waited for the cap), and in every file the first time (a memory's first night,
    or the first since this looked)."""
    cap = deletion_cap(len(ctx.topics()))
    ops: list[Operation] = []
    if ctx.state.resurrected is None:  # every file, once, against forgotten.md as the night
        # began (what tonight's own steps removed was removed, not brought back)
        tree = {**ctx.tree, tombstones.PATH: ctx.forgotten}
        found = plain_git.resurrected(tree, None, parse=ctx.doc)
    else:
        paths = ctx.changed | set(ctx.state.resurrected)
        found = plain_git.resurrected(ctx.tree, paths, parse=ctx.doc)
    ctx.resurrected = set()
    for path, e, stone in found:
        pushed = ctx.brought_back(path, e.text)
        if not pushed:
            continue
        ctx.resurrected.add(path)  # looked at again tomorrow: gone by then, or still waiting
        if ctx.removed >= cap:
            out.body.append(
                f"- removal of a resurrected fact waits for the cap: {path}: {e.text!r}"
            )
            continue
        ctx.removed += 1
        ops.append(RemoveEntry(path, e.text))
        out.body.append(
            f"- removed resurrected {path}: {e.text!r} (brought back by {pushed}; {stone})"
        )
    return ops


def repair_links(ctx: Context, out: StepResult) -> list[Operation]:
    ops: list[Operation] = []
    paths = [p for p in ctx.tree if p.endswith(".md") and not p.startswith(".dream/")]
    index = ctx.doc("MEMORY.md").index_entries() if "MEMORY.md" in ctx.tree else []
    index_lines = {e.line for e in index}
    for path in sorted(paths):
        if "[[" not in ctx.tree[path]:
            continue  # most files have no links: skip parsing them
        for e in ctx.doc(path).entries:
            if ctx.settled(path, e):
                continue
            text, broken = e.text, []
            for link in e.links:
                target = fmt.link_target(link)
                if target is None or target in ctx.tree:
                    continue
                new = ctx.renamed(target)
                if new and new in ctx.tree:
                    fixed = link.replace(link.split("|", 1)[0].split("#", 1)[0], fmt.link_for(new))
                    text = text.replace(f"[[{link}]]", f"[[{fixed}]]")
                    out.body.append(f"- link in {path}: [[{link}]] → [[{fixed}]] (renamed)")
                else:
                    broken.append(link)
            if broken and path == "MEMORY.md" and e.line in index_lines and text == e.text:
                ops.append(RemoveEntry(path, e.text))
                out.body.append(f"- dropped from the index: [[{broken[0]}]] (no such file)")
            elif text != e.text:
                ops.append(ReplaceEntry(path, e.text, text, e.meta))
            for link in broken:
                if path != "MEMORY.md":
                    out.body.append(f"- broken link in {path}: [[{link}]] (no such file, kept)")
    return ops


def file_inbox(ctx: Context, out: StepResult) -> list[Operation]:
    if INBOX not in ctx.tree:
        return []
    topics = ctx.topics()
    chooser = TopicChooser(topics, {p: _title(ctx.tree.get(p, "")) for p in topics})
    stones = tombstones.load(ctx.tree.get(tombstones.PATH))
    known = set(topics)
    ops: list[Operation] = []
    for e in ctx.doc(INBOX).entries:
        if ctx.settled(INBOX, e):
            continue
        target = _named_topic(e, known) or chooser.choose(e.text)
        if target == INBOX:
            continue
        if people_only(target) and standing.of(e) != standing.ACTIVE:
            # the instructions agents follow are people's: an agent's note is never filed there
            out.body.append(f"- inbox: left {e.text!r}: an agent's note stays out of {target}")
            continue
        try:
            tombstones.check(e.text, stones)
        except TombstoneConflict as exc:
            out.body.append(f"- inbox: left {e.text!r}: {exc}")
            continue
        ops.append(RemoveEntry(INBOX, e.text))
        ops.append(AddEntry(target, e.text, e.meta))
        out.body.append(f"- filed {e.text!r} under {target}")
    return ops


class TopicChooser:
    """The rule of notes.choose_topic (a file's name as a whole word in the text; the longest
    wins; a tie stays in the inbox), indexed by name: filing a full inbox against thousands of
    topics must not compile one pattern per topic and entry."""

    def __init__(self, topics: list[str], titles: dict[str, str] | None = None) -> None:
        self.by_name: dict[str, list[str]] = {}
        self.odd: dict[str, bytes] = {}  # names with characters outside [\w-]: the plain rule
        # the fallback: a topic's subject words (its name's parts, its title's words) → topics
        self.by_word: dict[str, set[str]] = {}
        for path in topics:
            name = path.rsplit("/", 1)[-1][:-3].lower()
            if path.startswith(NOT_FILED) or len(name) < 3 or name in _STOP:
                continue
            subject = re.split(r"[-_\s]+", name) + _WORD.findall((titles or {}).get(path, ""))
            for w in subject:
                if len(w) >= SUBJECT_LETTERS and w not in _STOP and not w.isdigit():
                    self.by_word.setdefault(_fold(w), set()).add(path)
            if _NAME.fullmatch(name):
                self.by_name.setdefault(name, []).append(path)
            else:
                self.odd[path] = b""

    def choose(self, text: str) -> str:
        words = set(_NAME.findall(text.lower()))
        found = [(len(w), p) for w in words for p in self.by_name.get(w, ())]
        if self.odd:
            odd = choose_topic(self.odd, text)
            if odd != INBOX:
                found.append((len(odd.rsplit("/", 1)[-1]) - 3, odd))
        if not found:
            return self._by_subject(text)
        best = max(n for n, _ in found)
        top = sorted({p for n, p in found if n == best})
        return top[0] if len(top) == 1 else INBOX

    def _by_subject(self, text: str) -> str:
        """The topic sharing the most subject words with the note (at least SUBJECT_WORDS, and
        strictly more than any other topic), else the inbox: a note about "the nightly batch
        alert" goes to runbooks/nightly-batch.md whose title speaks of the batch alert."""
        score: dict[str, int] = {}
        for w in {_fold(w) for w in _WORD.findall(text.lower())}:
            for path in self.by_word.get(w, ()):
                score[path] = score.get(path, 0) + 1
        if not score:
            return INBOX
        ranked = sorted(score.items(), key=lambda kv: (-kv[1], kv[0]))
        top = ranked[0][1]
        if top < SUBJECT_WORDS or (len(ranked) > 1 and ranked[1][1] == top):
            return INBOX
        return ranked[0][0]


def _fold(word: str) -> str:
    return word[:-1] if len(word) > 4 and word.endswith("s") else word


def _title(text: str) -> str:
    """A file's first line without its heading marks (what the file is about)."""
    first = text.split("\n", 1)[0]
    return first.lstrip("#").strip().lower() if first.startswith("#") else ""


def _named_topic(e: fmt.Entry, known: set[str]) -> str | None:
    for link in e.links:
        target = fmt.link_target(link)
        if target in known:
            return target
    scope = (e.get("scope") or "").strip()
    for cand in (scope, scope + ".md"):
        if cand in known:
            return cand
    return None


def merge_duplicates(ctx: Context, out: StepResult) -> list[Operation]:
    # Inbox notes that no topic claimed can repeat each other or a topic's fact too; lessons
    # are consolidated by the outcomes step, with their signatures.
    inbox = [INBOX] if INBOX in ctx.tree else []
    paths = [p for p in [*ctx.topics(), *inbox] if not p.startswith("conventions/")]
    budget = deletion_cap(len(ctx.topics())) - ctx.removed
    ops, removed = merge.merge(ctx, out, paths, budget, ctx.confirm)
    for pair in out.facts.get("possible", []):
        out.body.append(f"- possible duplicate, not merged: {pair.text!r} / {pair.other_text!r}")
    ctx.removed += removed
    return ops


_PARTS = (expire, remove_resurrected, repair_links, file_inbox, merge_duplicates)


def run(ctx: Context) -> StepResult:
    result = StepResult("tidy")
    scratch = replace(ctx, tree=dict(ctx.tree))
    start = ctx.removed
    counts: list[int] = []
    full = True  # every part that waits, waits for room in forgotten.md
    for part in _PARTS:
        removed, said, facts = scratch.removed, len(result.body), dict(result.facts)
        ops = part(scratch, result)
        try:
            scratch.apply(ops)
        except MemoryStoreError as exc:
            # forgotten.md at its cap, or a part's text the write path refuses (a secret): this
            # part waits, the night goes on (before, a refusal here stopped the whole dream)
            scratch.removed, result.facts, ops = removed, facts, []
            del result.body[said:]
            result.body.append(f"- {part.__name__.replace('_', ' ')}: not written tonight: {exc}")
            full = full and isinstance(exc, TooLarge)
        result.ops.extend(ops)
        counts.append(len(ops))
    ctx.removed, ctx.resurrected = scratch.removed, scratch.resurrected
    expired, back, links, filed, merged = counts
    possible = result.facts.get("possible", [])
    result.facts = {"expired": expired, "links": links, "filed": filed // 2, "merged": merged}
    result.facts["resurrected"] = back
    result.facts["removed"] = scratch.removed - start  # entries gone: the digest's deletions
    result.facts["possible"] = possible
    result.facts["tree"] = scratch.tree  # the tree after these operations, for the next step
    if result.ops:
        result.subject = (
            f"{sum(1 for ln in result.body if ln.startswith('- merged'))} duplicates merged, "
            f"{filed // 2} inbox notes filed, {links} links repaired, {expired} expired"
            + (f", {back} forgotten facts removed again" if back else "")
        )
    waiting = [ln for ln in result.body if "not written tonight" in ln]
    if waiting:  # the digest's list of steps says so, written or not
        result.subject = (result.subject if result.ops else "nothing written") + (
            f"; {len(waiting)} part(s) not written tonight"
            + (" (forgotten.md is at its size cap)" if full else ": the write path refused them")
        )
    return result
