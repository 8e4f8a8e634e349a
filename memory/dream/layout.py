"""Step layout: titles that say what a file is about, and a layout that fits the memory.

Proposed, never done: each change is one entry of `proposals.md` (memory/dream/proposing.py),
one card in the digest, applied by memory/dream/reorganise.py as one commit by the person who
accepts it (so it reverts alone), `[[links]]` to the files it moves rewritten.

- **title**: a topic whose name and title line say little (`notes.md`, `misc-2.md`, `# Notes`:
  no word but generic ones, numbers and dates) and that holds at least MIN_ENTRIES entries gets
  a title from them: Claude's with a key, else its most characteristic words (frequent in the file,
  rare in the files beside it);
- **merge**: two topics in one folder whose names say one subject (`deploy.md`, `deploys.md`,
  `deploy-notes.md`; `on-call.md`, `oncall.md`): the smaller into the larger;
- **split**: a topic holding three subjects or more, as its own `## ` sections say (each with at
  least MIN_SECTION entries, their words nearly disjoint): each section its own file in a folder
  named after it, the file left as the list of links to them (so every link to it still leads);
- **regroup**: a folder of at least FOLDER_FILES files, REGROUP_FILES or more of which share a
  name prefix (`runbooks/deploy-api.md`, `runbooks/deploy-web.md` …): those move into
  `runbooks/deploy/` (`api.md`, `web.md` …).

`preferences/` and `conventions/` (people's instructions), the index, inbox, daily notes and
hippo's own files are left as they are. Pure: the tree's text in, operations out.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterator, Sequence
from itertools import chain
from typing import Protocol

from memory import format as fmt
from memory.dream.context import Context, StepResult
from memory.dream.proposing import Proposer, signature
from memory.dream.recurring import words

MAX_PROPOSALS = 10  # layout proposals a night
MIN_ENTRIES = 3
MIN_SECTION = 3
SPLIT_OVERLAP = 0.15  # Jaccard of two sections' words under which they are two subjects
FOLDER_FILES = 40
REGROUP_FILES = 5
MAX_MOVED = 60  # files one regroup moves, at most
SIBLINGS = 200  # files beside a topic its words are compared with, at most
KEPT = ("preferences/", "conventions/")
GENERIC = frozenset(
    [
        "notes",
        "note",
        "misc",
        "miscellaneous",
        "stuff",
        "things",
        "thing",
        "todo",
        "todos",
        "temp",
        "tmp",
        "untitled",
        "new",
        "draft",
        "drafts",
        "general",
        "other",
        "others",
        "random",
        "scratch",
        "page",
        "pages",
        "doc",
        "docs",
        "file",
        "files",
        "info",
        "log",
        "logs",
        "dump",
        "wip",
        "old",
        "test",
        "tests",
        "data",
        "items",
        "list",
        "more",
        "various",
        "unsorted",
        "sheet",
        "topic",
        "topics",
        "memo",
        "memos",
        "readme",
        "index",
        "copy",
        "final",
    ]
)
_PART = re.compile(r"[^a-z0-9]+")
_SLUG = re.compile(r"[^a-z0-9]+")
_PREFIX = re.compile(r"([a-z][a-z0-9]+)[-_]\w")


class Titler(Protocol):
    """Claude names a file from its entries; None: use the characteristic words."""

    def title(self, path: str, entries: Sequence[str]) -> str | None: ...


def run(ctx: Context, titler: Titler | None = None) -> StepResult:
    result = StepResult("layout")
    topics = [p for p in ctx.topics() if not p.startswith(KEPT)]
    by_folder: dict[str, list[str]] = defaultdict(list)
    for path in topics:
        by_folder[path.rpartition("/")[0]].append(path)
    proposer = Proposer(ctx, MAX_PROPOSALS)
    found = chain(
        _merges(ctx, topics),
        _splits(ctx, topics),
        _regroups(by_folder, set(topics)),
        _titles(ctx, by_folder, titler),
    )
    for kind, path, text, about, meta in found:  # worked out one at a time, until the limit
        if proposer.offer(kind, path, text, signature(kind, about), meta):
            result.body.append(f"- {kind}: {text}")
        if proposer.full:
            break
    result.ops = list(proposer.ops)
    result.facts = {"proposed": len(result.ops), "skipped": proposer.skipped}
    if result.ops:
        result.subject = f"{len(result.ops)} layout changes proposed"
    return result


Found = tuple[str, str, str, str, tuple[tuple[str, str], ...]]  # kind, path, text, about, meta


def subject(path: str) -> str:
    """What a file's name says it is about: its words but generic ones, plurals folded, joined
    (`deploy-notes.md`, `Deploys.md` → "deploy"; `on-call.md` → "oncall"); "" when nothing."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0].lower()
    parts = [p for p in _PART.split(stem) if p and p not in GENERIC]
    return "".join(_fold(p) for p in parts)


def _fold(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _merges(ctx: Context, topics: list[str]) -> Iterator[Found]:
    by: dict[tuple[str, str], list[str]] = defaultdict(list)
    for path in topics:
        key = subject(path)
        if len(key) >= 3 and not key.isdigit():
            by[(path.rpartition("/")[0], key)].append(path)
    for (_, key), paths in sorted(by.items()):
        if len(paths) < 2:
            continue
        sizes = {p: len(ctx.doc(p).entries) for p in paths}
        into = max(paths, key=lambda p: (sizes[p], -len(p), p))
        for src in sorted(p for p in paths if p != into):
            why = f"both are about {key} by their names"
            text = f"merge {src} into {into} ({sizes[src]} entries; {why})"
            yield "merge", src, text, f"{src}>{into}", (("into", into), ("reason", why))


def _splits(ctx: Context, topics: list[str]) -> Iterator[Found]:
    for path in topics:
        text = ctx.tree[path]
        if text.count("\n## ") < 3:
            continue  # cheap: fewer than three sections
        sections = sections_of(ctx.doc(path))
        big = [(title, es) for title, es in sections if len(es) >= MIN_SECTION and slug(title)]
        if len(big) < 3 or len(big) != len(sections):
            continue
        vocab = [frozenset().union(*(words(e) for e in es)) for _, es in big]
        if any(
            len(a & b) / len(a | b) >= SPLIT_OVERLAP
            for i, a in enumerate(vocab)
            for b in vocab[i + 1 :]
        ):
            continue
        folder = path[:-3]
        parts = [f"{folder}/{slug(title)}.md" for title, _ in big]
        if len(set(parts)) < len(parts) or any(p in ctx.tree for p in parts):
            continue
        names = ", ".join(t for t, _ in big)
        why = f"{len(big)} sections about different things: {names}"
        text = f"split {path} into {', '.join(parts)} ({why})"
        yield "split", path, text, path, (("into", ", ".join(parts)), ("reason", why[:200]))


def sections_of(doc: fmt.Document) -> list[tuple[str, list[str]]]:
    """The file's `## ` sections in order, each with its entries' texts (entries before the
    first section are not in one)."""
    out: list[tuple[str, list[str]]] = []
    heads = {i: ln.strip()[3:].strip() for i, ln in enumerate(doc.lines) if ln.startswith("## ")}
    current: list[str] | None = None
    by_line = {e.line: e.text for e in doc.entries if e.indent == 0}
    for i in range(len(doc.lines)):
        if i in heads:
            out.append((heads[i], []))
            current = out[-1][1]
        elif i in by_line and current is not None:
            current.append(by_line[i])
    return out


def slug(title: str) -> str:
    return _SLUG.sub("-", title.lower()).strip("-")[:60]


def _regroups(by_folder: dict[str, list[str]], topics: set[str]) -> Iterator[Found]:
    for folder, paths in sorted(by_folder.items()):
        if len(paths) < FOLDER_FILES:
            continue
        by_prefix: dict[str, list[str]] = defaultdict(list)
        for p in paths:
            if m := _PREFIX.match(p.rsplit("/", 1)[-1]):
                by_prefix[m.group(1)].append(p)
        for prefix, named in sorted(by_prefix.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            n = len(named)
            if n < REGROUP_FILES or prefix in GENERIC or n > 0.9 * len(paths):
                continue
            moved = sorted(named)[:MAX_MOVED]
            base = f"{folder}/{prefix}" if folder else prefix
            if f"{base}.md" in topics:
                continue  # a file of that name: regrouping would sit beside it confusingly
            why = f"{n} of {len(paths)} files in {folder or 'the top folder'} start with {prefix}-"
            text = f"move {len(moved)} files into {base}/ ({why})"
            meta = (("to", base + "/"), ("files", ", ".join(moved)), ("reason", why))
            yield "regroup", folder or ".", text, f"{folder}/{prefix}", meta


def _titles(
    ctx: Context, by_folder: dict[str, list[str]], titler: Titler | None
) -> Iterator[Found]:
    for path in (p for paths in by_folder.values() for p in paths):
        text = ctx.tree[path]
        if subject(path) and not subject(path).isdigit():
            continue
        first = text.split("\n", 1)[0]
        said = [w for w in _PART.split(first.lstrip("#").lower()) if w and w not in GENERIC]
        if any(not w.isdigit() and len(w) > 2 for w in said):
            continue  # a person's title says something: theirs stays
        entries = [e.text for e in ctx.doc(path).entries]
        if len(entries) < MIN_ENTRIES:
            continue
        title = (titler.title(path, entries) if titler is not None else None) or _title(
            ctx, by_folder, path, entries
        )
        title = " ".join(title.split()).strip("# ")[:80]
        if title:
            why = f"its name and title say little ({first.strip()[:60] or 'no title'})"
            yield "title", path, title, path, (("reason", why),)


def _title(ctx: Context, by_folder: dict[str, list[str]], path: str, entries: list[str]) -> str:
    """The file's most characteristic words: frequent in its entries, rare beside it."""
    tf: Counter[str] = Counter()
    shown: dict[str, Counter[str]] = defaultdict(Counter)
    for e in entries:
        for raw in set(re.findall(r"[A-Za-z][\w-]{2,}", e)):
            for w in words(raw):
                tf[w] += 1
                shown[w][raw if raw.isupper() else raw.lower()] += 1
    folder = path.rpartition("/")[0]
    beside = [p for p in by_folder.get(folder, ()) if p != path][:SIBLINGS]
    df = Counter(w for p in beside for w in words(ctx.tree[p][:4000]))
    score = {w: n * math.log((len(beside) + 1) / (df[w] + 1)) for w, n in tf.items() if n > 1}
    best = sorted(score, key=lambda w: (-score[w], w))[:3]
    picked = [shown[w].most_common(1)[0][0] for w in best]
    joined = ", ".join(picked)
    return joined[:1].upper() + joined[1:]
