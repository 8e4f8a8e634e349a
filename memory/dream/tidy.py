"""Step 4, tidy: drop expired short-lived entries, repair links, file the inbox, merge duplicates.

Each part works on the tree the previous part left, so their operations compose into one commit:

1. entries marked short-lived (`scope: short-lived`/`transient`, or `ttl: short`) and older than a
   week (`added`) go;
2. a `[[link]]` whose file was renamed follows the rename found in git history; one that leads
   nowhere is dropped from the index (MEMORY.md) and reported elsewhere;
3. an `inbox.md` entry goes under the topic it names: a `[[link]]` to it, a `scope:` path, or
   the file's subject in its words (the same rule as saving a note);
4. duplicates (the same fact in other words: the same content words, within and across files)
   merge into the oldest entry, which keeps every source.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from memory import format as fmt
from memory import tombstones
from memory.dream.context import Context, StepResult
from memory.errors import TombstoneConflict
from memory.notes import INBOX, choose_topic
from memory.ops import AddEntry, Operation, RemoveEntry, ReplaceEntry

SHORT_LIVED = frozenset({"short-lived", "transient", "temporary", "short", "today", "this-week"})
MIN_WORDS = 3
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "with",
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
        # linking verbs: "X comes from Y" and "Y makes X" state the same fact
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
    }
)


def content_key(text: str) -> frozenset[str] | None:
    """The fact's content words (stop words dropped, plurals folded); None when too short."""
    words = {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in fmt.normalise(text).split()}
    words -= _STOP
    return frozenset(words) if len(words) >= MIN_WORDS else None


def _short_lived(e: fmt.Entry) -> bool:
    marks = {(e.get(k) or "").strip().lower() for k in ("scope", "ttl", "lifetime")}
    return bool(marks & SHORT_LIVED)


def expire(ctx: Context, out: StepResult) -> list[Operation]:
    cutoff = (ctx.today - timedelta(days=7)).isoformat()
    ops: list[Operation] = []
    for path in [*ctx.topics(), INBOX]:
        for e in ctx.doc(path).entries:
            added = e.get("added") or ""
            if _short_lived(e) and added and added < cutoff:
                ops.append(RemoveEntry(path, e.text))
                out.body.append(f"- expired {path}: {e.text!r} (short-lived, added {added})")
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
    names = dict.fromkeys(topics, b"")
    stones = tombstones.load(ctx.tree.get(tombstones.PATH))
    ops: list[Operation] = []
    for e in ctx.doc(INBOX).entries:
        target = _named_topic(e, topics) or choose_topic(names, e.text)
        if target == INBOX:
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


def _named_topic(e: fmt.Entry, topics: list[str]) -> str | None:
    known = set(topics)
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
    groups: dict[frozenset[str], list[tuple[str, fmt.Entry]]] = {}
    for path in ctx.topics():
        if path.startswith("conventions/"):
            continue  # lessons are consolidated by the outcomes step, with their signatures
        doc = ctx.doc(path)
        parents = {e.parent for e in doc.entries if e.parent is not None}
        for e in doc.entries:
            if e.parent is not None or e.line in parents:
                continue  # nested entries belong to their parent: never merged alone
            key = content_key(e.text)
            if key is not None:
                groups.setdefault(key, []).append((path, e))
    removes: list[Operation] = []
    replaces: list[Operation] = []
    for members in groups.values():
        if len(members) < 2:
            continue
        members.sort(key=lambda pe: (pe[1].get("added") or "9999", pe[0], pe[1].line))
        (kpath, keep), rest = members[0], members[1:]
        sources = list(dict.fromkeys(s for _, e in members for s in e.get_all("source") if s))
        kept = [(k, v) for k, v in keep.meta if k.lower() != "source"]
        meta = tuple([("source", s) for s in sources] + kept)
        for path, e in rest:
            # removing first: when keeper and copy read the same in one file, the replace below
            # then lands on the line that is left, so one line with every source stays
            removes.append(RemoveEntry(path, e.text))
            out.body.append(f"- merged {path}: {e.text!r} into {kpath}: {keep.text!r}")
        if meta != keep.meta:
            replaces.append(ReplaceEntry(kpath, keep.text, keep.text, meta))
    return removes + replaces


_PARTS = (expire, repair_links, file_inbox, merge_duplicates)


def run(ctx: Context) -> StepResult:
    result = StepResult("tidy")
    scratch = replace(ctx, tree=dict(ctx.tree))
    counts: list[int] = []
    for part in _PARTS:
        ops = part(scratch, result)
        scratch.apply(ops)
        result.ops.extend(ops)
        counts.append(len(ops))
    expired, links, filed, merged = counts
    result.facts = {"expired": expired, "links": links, "filed": filed // 2, "merged": merged}
    if result.ops:
        result.subject = (
            f"{sum(1 for ln in result.body if ln.startswith('- merged'))} duplicates merged, "
            f"{filed // 2} inbox notes filed, {links} links repaired, {expired} expired"
        )
    return result
