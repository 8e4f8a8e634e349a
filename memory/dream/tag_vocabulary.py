"""Step 5, tags: keep the tags to a small vocabulary, one spelling per tag.

Spellings that are one tag (memory/format/tags.py `key`: case, `-`/`_`/space, plural endings)
merge into one; so do the aliases a team declares in ALIASES (`- kubernetes [aliases: k8s,
kube]`: every alias, in any spelling, becomes the entry's text). The spelling kept is the
declared one, else the one on most entries, else the plain one (lower case, `-`), else the
first in order. Each merge is its own commit (`dream(tags): …`, key `dream:<night>:tags:<tag>`),
so a person reverts one merge alone (the digest's Revert, the console, `git revert`); at most
MAX_MERGES a night, the most used tags first, the rest the next night. Like every step, a merge
leaves alone the entries an earlier commit wrote tonight and the lines next to them
(`Context.settled`); they are merged the next night.

A merge a person undid (the console's or the digest's revert, or a plain `git revert`: both
quote the merge's subject) sticks: the spellings it had merged away are kept apart from then on
(`tag:<spelling>` in the state's `apart`), and only a declared alias merges them again.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import memory.format.tags as tags
from memory import format as fmt
from memory.dream.context import Context, StepResult
from memory.errors import MemoryStoreError
from memory.git.store import Store
from memory.writes.operations import Operation, ReplaceEntry

ALIASES = ".hippo/tags.md"
MAX_MERGES = 10
# Files whose entries are not the team's facts: records of what was removed or proposed.
_SKIP = frozenset({"forgotten.md", "proposals.md"})
_SKIP_DIRS = ("archive/", ".dream/", ".hippo/")
APART = "tag:"  # the state's `apart` holds `tag:<spelling>` for spellings a person un-merged
LOG_LIMIT = 500  # commits since the last dream read for reverted merges
# A revert's subject quotes the merge's: `revert: "dream(tags): tag deploy: Deploys → deploy on
# 2 entries"` (hippo) or `Revert "dream(tags): …"` (git). Tags hold no ':' or ','.
_REVERTED = re.compile(r'"dream\(tags\): tag (?P<to>[^:"]+): (?P<away>[^:"]+) → (?P=to) on \d+ ')


@dataclass(frozen=True)
class Merge:
    """One tag's spellings (`spellings`, as written, each with its entries) into `chosen`."""

    group: str
    chosen: str
    spellings: tuple[tuple[str, int], ...]

    @property
    def name(self) -> str:
        return f"tags:{self.group}"


def unmerged(store: Store, last_commit: str) -> set[str]:
    """`apart` marks for the spellings of each tag merge reverted since the last dream."""
    if not last_commit:
        return set()
    out: set[str] = set()
    try:
        commits = store.log(limit=LOG_LIMIT)
    except MemoryStoreError:
        return out
    for commit in commits:
        if commit.sha == last_commit:
            break
        m = _REVERTED.search(commit.summary)
        if m is not None:
            out |= {APART + s.strip() for s in m["away"].split(",")}
    return out


def aliases(ctx: Context) -> dict[str, str]:
    """Tag key → the spelling the team declared for it (each declared tag and its aliases)."""
    out: dict[str, str] = {}
    if ALIASES not in ctx.tree:
        return out
    for entry in ctx.doc(ALIASES).entries:
        chosen = entry.text.strip()
        if tags.problem(chosen) is not None:
            continue  # not a tag: lint reports nothing here, the digest's step says nothing
        out[tags.key(chosen)] = chosen
        for value in entry.get_all("aliases"):
            for alias in tags.split(value):
                out.setdefault(tags.key(alias), chosen)
    return out


def tagged(ctx: Context) -> Iterator[tuple[str, fmt.Entry]]:
    """Every entry carrying a tag, in the files that hold the team's facts."""
    for path in sorted(ctx.tree):
        if not path.endswith(".md") or path in _SKIP or path.startswith(_SKIP_DIRS):
            continue
        if "tags:" not in ctx.tree[path].lower():
            continue
        for entry in ctx.doc(path).entries:
            if entry.get(tags.KEY) is not None:
                yield path, entry


def vocabulary(ctx: Context) -> Counter[str]:
    """Each tag spelling in use → the entries carrying it."""
    return Counter(t for _, e in tagged(ctx) for t in tags.of(e))


def plan(ctx: Context) -> tuple[list[Merge], int]:
    """Tonight's merges (at most MAX_MERGES, most used tags first) and how many wait."""
    declared = aliases(ctx)
    groups: dict[str, Counter[str]] = {}
    for spelling, n in vocabulary(ctx).items():
        if APART + spelling in ctx.apart and tags.key(spelling) not in declared:
            continue  # a person undid its merge: it stays as it is
        group = tags.key(declared.get(tags.key(spelling), spelling))
        groups.setdefault(group, Counter())[spelling] += n
    merges = []
    for group, spellings in groups.items():
        chosen = declared.get(group) or _most_used(spellings)
        if set(spellings) != {chosen}:
            merges.append(Merge(group, chosen, tuple(sorted(spellings.items()))))
    merges.sort(key=lambda m: (-sum(n for _, n in m.spellings), m.group))
    return merges[:MAX_MERGES], max(0, len(merges) - MAX_MERGES)


def _most_used(spellings: Counter[str]) -> str:
    return min(spellings, key=lambda s: (-spellings[s], s != tags.canonical(s), s))


def run(ctx: Context, merge: Merge) -> StepResult:
    """One merge's commit, made from the tree as the steps before it left it."""
    ops: list[Operation] = []
    body: list[str] = []
    for path, entry in tagged(ctx):
        found = tags.of(entry)
        mine = [t for t, _ in merge.spellings if t in found]
        if not mine or set(mine) == {merge.chosen} or ctx.settled(path, entry):
            continue
        value = tags.join(merge.chosen if t in mine else t for t in found)
        ops.append(ReplaceEntry(path, entry.text, entry.text, _retagged(entry, value)))
        body.append(f"- {path}: {', '.join(mine)} → {merge.chosen}: {entry.text[:80]}")
    others = ", ".join(s for s, _ in merge.spellings if s != merge.chosen)
    result = StepResult("tags", ops, body=body)
    result.subject = f"tag {merge.chosen}: {others} → {merge.chosen} on {len(ops)} entries"
    return result


def _retagged(entry: fmt.Entry, value: str) -> tuple[tuple[str, str], ...]:
    """The entry's metadata with its `tags:` keys as one, where the first was."""
    out: list[tuple[str, str]] = []
    for k, v in entry.meta:
        if k.lower() != tags.KEY:
            out.append((k, v))
        elif not any(ok.lower() == tags.KEY for ok, _ in out):
            out.append((k, value))
    return tuple(out)
