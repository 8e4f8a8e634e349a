"""Tombstones' roll-over (decision 19): when forgotten.md passes its high-water mark, its oldest
records move to the cold ref (memory/git/cold.py) as `forgotten/YYYY-MM.md`, by the month of
their `removed:` date, one month per commit on each side, until the file is under its low-water
mark. Without it a memory whose tombstones reach the 2 MB cap merges and forgets nothing more.

Only months that ended before last month began move (the records of the last one to two months
always stay), oldest first:

1. the month's record lines are merged into the cold month file, as a multiset of lines (a line
   the cold file already holds as often is not added again), pushed with a compare-and-swap and
   read back: every record must be there, or nothing leaves the tree (`RecordsMissing`);
2. one commit on the branch by the dreaming identity removes them from forgotten.md (entry
   operations, so a forget landing meanwhile is kept), key `forgotten:roll:<month>:<digest of
   the records>`: the same records rolled again are the same key, so a reverted roll stays
   reverted (the night rolls the next month instead) until the month's records change;
3. the lines that commit actually removed (its parent's file against its own) are checked
   against the cold store once more and any missing one is rolled in a further cold commit.

A record in the cold store refuses nothing in the write path (a person or an agent may say the
fact again); the dream's own corrections still check it (`cold_stones`, as `Context.cold_stones`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

import memory.facts.tombstones as tombstones
import memory.format.lines as textlines
from memory import format as fmt
from memory.archive.rollup import TRIES, missing
from memory.errors import MemoryStoreError, RemoteError
from memory.git.batch import DREAMER, Author
from memory.git.cold import COLD_REF, FORGOTTEN, ColdStore
from memory.writes.operations import RemoveEntry
from memory.writes.validate import MAX_FILE_BYTES

if TYPE_CHECKING:
    from memory.git.store import Store

FOLDER = FORGOTTEN
HIGH = MAX_FILE_BYTES * 3 // 4  # over this many bytes, forgotten.md sheds its oldest months…
LOW = MAX_FILE_BYTES // 2  # …until it is at most this many (or no month is old enough)
MONTH_TRAILER = "Hippo-Forgotten-Month"
_MONTH = re.compile(r"^(\d{4}-\d{2})-\d{2}")


class RecordsMissing(MemoryStoreError):
    """The cold store does not hold every record of the month: none left forgotten.md."""


@dataclass(frozen=True)
class Rolled:
    month: str
    records: int
    added: int  # record lines the cold month did not hold yet
    cold: str  # the cold commit holding them
    commit: str | None  # the branch's commit removing them
    created: bool  # False: the same roll had landed before (reverted since: left alone)
    shed: int  # bytes of forgotten.md the records took


def cold_path(month: str) -> str:
    return f"{FOLDER}/{month}.md"


def records(text: str | None) -> list[tuple[str, fmt.Entry, str]]:
    """(month of its `removed:` date, or "", the entry, its line) for each record in file order."""
    if not text:
        return []
    lines = textlines.split(text)
    out = []
    for e in fmt.parse(text).entries:
        found = _MONTH.match((e.get("removed") or "").strip())
        out.append((found.group(1) if found else "", e, lines[e.line]))
    return out


def due(text: str | None, today: date) -> dict[str, list[tuple[fmt.Entry, str]]]:
    """Month → its records, for months before last month (oldest first). Records without a
    date (a plain-git edit) never roll."""
    last = date(today.year - (today.month == 1), (today.month - 2) % 12 + 1, 1)
    found: dict[str, list[tuple[fmt.Entry, str]]] = {}
    for month, e, line in records(text):
        if month and month < f"{last:%Y-%m}":
            found.setdefault(month, []).append((e, line))
    return dict(sorted(found.items()))


def roll(
    store: Store,
    today: date,
    *,
    author: Author = DREAMER,
    high: int = HIGH,
    low: int = LOW,
    trailers: Mapping[str, str] | None = None,
) -> list[Rolled]:
    """Roll the oldest due months while forgotten.md is over `low`, if it is over `high`;
    `trailers` go on each branch commit (the dream's run id)."""
    tip = store.tip()
    text = store.read_or_none(tombstones.PATH, tip) if tip is not None else None
    size = len((text or "").encode("utf-8"))
    if size <= high:
        return []
    cold, out = ColdStore(store), []
    for month, found in due(text, today).items():
        if size <= low:
            break
        done = roll_month(store, cold, month, found, author=author, trailers=trailers)
        out.append(done)
        size -= done.shed if done.created else 0
    return out


def roll_month(
    store: Store,
    cold: ColdStore,
    month: str,
    found: list[tuple[fmt.Entry, str]],
    *,
    author: Author,
    trailers: Mapping[str, str] | None = None,
) -> Rolled:
    lines = [line for _, line in found]
    shed = sum(len(line.encode("utf-8")) + 1 for line in lines)
    cold_tip, added = _into_cold(cold, {month: lines}, author=author)
    digest = hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()[:32]
    result = store.write(
        [RemoveEntry(tombstones.PATH, e.text) for e, _ in found],
        author=author,
        message=(
            f"forgotten: roll {month} into cold storage ({len(lines)} records, {shed} bytes)\n\n"
            f"forgotten.md passed {HIGH} bytes. The records are in {COLD_REF} at {cold_tip}, "
            f"{cold_path(month)}; there they no longer refuse a note that says the fact again. "
            "Reverting this commit puts them back."
        ),
        key=f"forgotten:roll:{month}:{digest}",
        trailers={**(trailers or {}), "Hippo-Forgotten-Cold": cold_tip, MONTH_TRAILER: month},
    )
    if result.created:  # what the commit removed is its parent's lines: every one must be cold
        # lines compared as text (a parse of each copy was most of a roll's time); only the
        # lines gone are parsed, to find their months
        before = textlines.split(store.read_or_none(tombstones.PATH, f"{result.commit}^") or "")
        gone = missing(
            textlines.split(store.read_or_none(tombstones.PATH, result.commit) or ""), before
        )
        by_month: dict[str, list[str]] = {}
        for m, _, line in records("\n".join(gone) + "\n" if gone else ""):
            by_month.setdefault(m or month, []).append(line)
        if by_month:
            cold_tip, more = _into_cold(cold, by_month, author=author)
            added += more
    return Rolled(month, len(lines), added, cold_tip, result.commit, result.created, shed)


def _into_cold(cold: ColdStore, months: dict[str, list[str]], *, author: Author) -> tuple[str, int]:
    """Merge record lines into their cold month files; (the cold tip holding all, lines added)."""
    for _ in range(TRIES):
        old, added, at = cold.fetch(), 0, None
        index = cold.index(old)
        for month, lines in sorted(months.items()):
            held = month_lines(cold, at or old, month)
            new = missing(held, lines)
            if not new and (at or old) is not None and month in held_months(cold, at or old):
                continue
            total = len(held) + len(new)
            index.setdefault(FOLDER, {})[month] = {"records": total}
            title = f"# Forgotten in {month}: records rolled out of forgotten.md\n\n"
            data = (title + "".join(f"{ln}\n" for ln in held + new)).encode("utf-8")
            message = f"forgotten: {month}, {len(new)} records added ({total} in all)"
            at = cold.put(at or old, cold_path(month), data, index, author=author, message=message)
            added += len(new)
        if at is None and old is not None:
            return old, 0
        if at is not None and cold.advance(at, old):
            _check(cold, at, months)
            return at, added
    raise RemoteError(f"{COLD_REF} kept moving while rolling up forgotten.md; try again later")


def held_months(cold: ColdStore, commit: str | None) -> dict[str, str]:
    """Month → the blob id of its cold tombstone file, at `commit`."""
    return cold.folder(commit, FOLDER, ".md")


def month_lines(cold: ColdStore, commit: str | None, month: str) -> list[str]:
    blob = held_months(cold, commit).get(month)
    return [line for _, _, line in records(cold.text(blob))] if blob is not None else []


def _check(cold: ColdStore, commit: str, months: dict[str, list[str]]) -> None:
    for month, lines in months.items():
        gone = missing(month_lines(cold, commit, month), lines)
        if gone:
            raise RecordsMissing(
                f"the cold store's forgotten/{month}.md lacks {len(gone)} of {len(lines)} "
                "records; forgotten.md was left as it is"
            )


def cold_stones(store: Store) -> tombstones.Stones:
    """Every tombstone of the cold store (fetched now), oldest month first."""
    cold = ColdStore(store)
    tip = cold.fetch()
    out = tombstones.Stones()
    for month in sorted(held_months(cold, tip)):
        text = "".join(f"{line}\n" for line in month_lines(cold, tip, month))
        out.extend(tombstones.load(text))
    return out


def lazily(load: Callable[[], tombstones.Stones]) -> Callable[[], tombstones.Stones]:
    """`load` run on the first call only (a night asks for the cold stones at most once)."""
    kept: list[tombstones.Stones] = []

    def get() -> tombstones.Stones:
        if not kept:
            kept.append(load())
        return kept[0]

    return get
