"""Saving notes and forgetting facts: the rules every front door (Slack, CLI, MCP) shares."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Literal

import memory.facts.tombstones as tombstones
import memory.format.tags as fmt_tags
import memory.trust.rules as trust
from memory import format as fmt
from memory import secrets
from memory.errors import NoteRejected, SecretFound
from memory.facts import timebound
from memory.git.batch import Author, WriteResult
from memory.git.store import Store
from memory.writes.operations import AddEntry, AddTombstone, DeleteFile, Operation, RemoveEntry

INBOX = "inbox.md"
_RUN = re.compile(r"[\w-]+")
MAX_NOTE = 4000
TITLE_MAX = 100  # a new topic's title, within validate.MAX_NAME_CHARS
# Files that are not topics: notes never land there and forget never removes from them.
_NOT_TOPICS = ("MEMORY.md", INBOX, tombstones.PATH, trust.PROPOSALS, fmt.REMINDERS)
_NOT_TOPIC_DIRS = ("daily/", "archive/", ".dream/", "preferences/", "conventions/")
STOP_WORDS = frozenset(
    [
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
    ]
)


@dataclass(frozen=True)
class Saved:
    path: str
    text: str
    result: WriteResult


@dataclass(frozen=True)
class Match:
    path: str
    line: int  # 1-based
    text: str
    meta: Mapping[str, str]


# What forget did: removed the one entry that matched, or nothing (several matched, or none).
ForgetStatus = Literal["removed", "ambiguous", "none"]


@dataclass(frozen=True)
class Forgot:
    status: ForgetStatus
    matches: tuple[Match, ...]
    result: WriteResult | None = None


def clean_note(text: str) -> str:
    """The note as one line; NoteRejected/SecretFound with a reason a person can act on."""
    flat = " ".join(text.split())
    if not flat:
        raise NoteRejected("the note is empty: write what to remember after 'save a note:'")
    if len(flat) > MAX_NOTE:
        raise NoteRejected(
            f"the note is {len(flat):,} characters; the limit is {MAX_NOTE:,}. "
            "Save the gist and link to the rest"
        )
    kind = secrets.first(flat)
    if kind is not None:
        raise SecretFound(kind)
    return flat


def choose_topic(paths: Iterable[str], text: str) -> str:
    """The topic file whose subject the note names, when exactly one clearly matches; else inbox.

    A file's subject is its name (checkout-api for services/checkout-api.md); it matches when the
    note contains it as a whole word. The longest subject wins over a shorter one it contains.
    """
    lowered = text.lower()
    # A subject made of word characters and hyphens matches exactly when it is one of the
    # note's runs of them: a set lookup per file, not a regex compiled per file (which made a
    # note at 10,000 files cost seconds).
    runs = set(_RUN.findall(lowered))
    found: list[tuple[int, str]] = []
    for path in paths:
        if not path.endswith(".md") or path in _NOT_TOPICS or path.startswith(_NOT_TOPIC_DIRS):
            continue
        subject = path.rsplit("/", 1)[-1][:-3].lower()
        if len(subject) < 3 or subject in STOP_WORDS:
            continue
        if subject in runs or (
            subject in lowered
            and not _RUN.fullmatch(subject)
            and re.search(rf"(?<![\w-]){re.escape(subject)}(?![\w-])", lowered)
        ):
            found.append((len(subject), path))
    if not found:
        return INBOX
    found.sort(reverse=True)
    best = [p for n, p in found if n == found[0][0]]
    return best[0] if len(best) == 1 else INBOX


def save_note(
    store: Store,
    text: str,
    *,
    today: str,
    author: Author,
    path: str | None = None,
    source: str | None = None,
    by: str | None = None,
    key: str | None = None,
    force: bool = False,
    tags: Sequence[str] = (),
) -> Saved:
    """Add one entry (`source`, `added`, `by`, `tags`) to `path`, or the topic it names, or
    inbox.md. `tags` may each hold several, comma-separated; the write path checks their
    spelling (memory/format/tags.py).

    A note that says when it stops being true ("today", "until the migration finishes", a date
    ahead) is marked `scope: short-lived` (memory/facts/timebound.py): tidy lets it expire.
    A new file starts with `# <title>` (`topic_title`); an existing file is never retitled."""
    note = clean_note(text)
    # The topic is chosen from the files as last fetched, never waiting for a fetch: it reads
    # only which topic files exist (one made in the last seconds elsewhere is missed, and the
    # note goes to the inbox the dream files from), and the write is applied on the true tip.
    target = path or choose_topic(store.files(wait=False), note)
    meta: list[tuple[str, str]] = []
    if source:
        meta.append(("source", source))
    meta.append(("added", today))
    if by:
        meta.append(("by", by))
    if any(t.strip() for t in tags):
        meta.append((fmt_tags.KEY, ", ".join(t.strip() for t in tags if t.strip())))
    if timebound.why_time_bound(note, date.fromisoformat(today)) is not None:
        meta.append(("scope", timebound.SHORT_LIVED))
    title = "Inbox: notes not yet filed under a topic" if target == INBOX else topic_title(target)
    result = store.write(
        [AddEntry(target, note, tuple(meta), title=title)],
        author=author,
        message=f"note: {_short(note)}",
        key=key,
        source=source,
        force=force,
    )
    return Saved(target, note, result)


def topic_title(path: str) -> str:
    """The title a note gives the topic file it creates, from the path alone (the same path
    always gets the same title): the file's name, '-' and '_' read as spaces, first letter
    capitalised, e.g. `services/checkout-api.md` → "Checkout api". The index (dream step 5)
    lists a file by its first line, so a new topic is listed by its subject, not its first note."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    words = " ".join(stem.replace("-", " ").replace("_", " ").split()) or stem
    words = words if len(words) <= TITLE_MAX else words[: TITLE_MAX - 1].rstrip() + "…"
    return words[:1].upper() + words[1:]


def _words(text: str) -> list[str]:
    return [w for w in fmt.normalise(text).split() if w not in STOP_WORDS]


def has_every_content_word(query: str | frozenset[str], text: str) -> bool:
    """Every meaningful word of `query` (or the words already taken from it) appears in `text`
    (case and punctuation ignored)."""
    want = _words(query) if isinstance(query, str) else query
    have = set(fmt.normalise(text).split())
    return bool(want) and all(w in have for w in want)


def matches(store: Store, query: str) -> list[Match]:
    """Entries that a forget request names, across topic files, inbox and preferences."""
    if store.tip() is None:
        return []
    exact = fmt.normalise(query)
    want = frozenset(_words(query))  # once: a long request costs its length, not times entries
    out: list[Match] = []
    for path, data in sorted(store.tree().items()):
        if (
            not path.endswith(".md")
            or path in (tombstones.PATH, trust.PROPOSALS)
            or path.startswith(".dream/")
        ):
            continue
        for e in fmt.parse(data.decode("utf-8", "replace")).entries:
            if (exact and fmt.normalise(e.text) == exact) or has_every_content_word(want, e.text):
                out.append(Match(path, e.line + 1, e.text, e.metadata))
    return out


def forget(
    store: Store,
    query: str,
    *,
    today: str,
    author: Author,
    by: str = "",
    reason: str = "",
    key: str | None = None,
    pick: Sequence[tuple[str, str]] | None = None,
    source: str | None = None,
) -> Forgot:
    """Remove what `query` names and tombstone it. Several matches and no `pick`: ask, change
    nothing. `pick` is a list of (path, entry text) that a person chose among the matches."""
    found = matches(store, _strip_that(query))
    chosen = found
    if pick is not None:
        chosen = [
            m for m in found if any(p == m.path and fmt.same_fact(t, m.text) for p, t in pick)
        ]
    if not chosen:
        return Forgot("none", tuple(found))
    if pick is None and len(chosen) > 1:
        return Forgot("ambiguous", tuple(found))
    ops: list[Operation] = []
    for m in chosen:
        ops.append(RemoveEntry(m.path, m.text))
        entry = fmt.Entry(line=0, indent=0, marker="-", text=m.text, meta=tuple(m.meta.items()))
        text, meta = tombstones.entry_for(entry, path=m.path, removed=today, by=by, reason=reason)
        ops.append(AddTombstone(tombstones.PATH, text, meta, title=tombstones.TITLE))
    result = store.write(
        ops,
        author=author,
        message=f"forget: {_short(chosen[0].text)}" + (f"\n\n{reason}" if reason else ""),
        key=key,
        source=source,
    )
    return Forgot("removed", tuple(chosen), result)


def forget_file(
    store: Store, path: str, *, by: str, reason: str, key: str, today: str, author: Author
) -> WriteResult | None:
    """Remove a whole file, each entry recorded in forgotten.md (the digest's Forget button for
    files nobody used); None when the file is already gone."""
    text = store.read_or_none(path)
    if text is None:
        return None
    ops: list[Operation] = [DeleteFile(path)]
    for entry in fmt.parse(text).entries:
        stone, meta = tombstones.entry_for(entry, path=path, removed=today, by=by, reason=reason)
        ops.append(AddTombstone(tombstones.PATH, stone, meta, title=tombstones.TITLE))
    message = f"forget {path}" + (f"\n\n{reason}" if reason else "")
    return store.write(ops, author=author, message=message, key=key)


def _strip_that(query: str) -> str:
    return re.sub(r"^\s*(that|about)\s+", "", query.strip(), flags=re.I)


def _short(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"
