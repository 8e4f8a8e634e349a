"""The roll-up: old months of `archive/YYYY-MM-DD.jsonl` move from the memory branch's tree into
the cold archive (memory/git/cold.py), one month per commit on each side.

For each month that ended before last month began (so the dream's daily step has read it):

1. the month's day files at the tip are merged into the cold month file, as a multiset of lines:
   a line the cold file already holds as often is not added again, so a re-run, a redelivery or
   the files a `git revert` put back add nothing, and late lines (appended by a person with
   plain git) are added once;
2. the cold commit is pushed with a compare-and-swap, then read back: every episode of the day
   files must be in the cold month, counted, or nothing is deleted (`EpisodesMissing`);
3. one commit on the branch by the dreaming identity deletes the day files, key
   `archive:rollup:<month>:<digest of the files>`: the same files rolled again are the same key,
   so a redelivered roll-up changes nothing and a reverted one stays reverted until a file of
   that month changes;
4. the files the deletion actually removed (its parent's) are checked against the cold month
   once more: a line appended between steps 1 and 3 is rolled in a further cold commit.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING

from memory.errors import MemoryStoreError, RemoteError
from memory.git.batch import DREAMER, Author
from memory.git.cold import COLD_REF, ColdStore
from memory.writes.operations import DeleteFile

if TYPE_CHECKING:
    from memory.git.store import Store

DAY_FILE = re.compile(r"^archive/(\d{4}-\d{2})-\d{2}\.jsonl$")
MAX_MONTHS = 12  # a night rolls at most this many months; the rest the next night
TRIES = 4  # compare-and-swap attempts on the cold ref


class EpisodesMissing(MemoryStoreError):
    """The cold archive does not hold every episode of the day files: nothing was deleted."""


@dataclass(frozen=True)
class Rolled:
    month: str
    files: int
    episodes: int  # non-blank lines of the day files rolled
    added: int  # lines the cold month did not hold yet
    cold: str  # the cold commit holding them
    commit: str | None  # the branch's deleting commit (None: none was needed)
    created: bool  # False: the same roll-up had landed before (its key is in history)


def due_months(paths: list[str], today: date) -> dict[str, list[str]]:
    """Month → its day files, for months before last month (oldest first)."""
    last = date(today.year - (today.month == 1), (today.month - 2) % 12 + 1, 1)
    boundary = f"{last:%Y-%m}"
    found: dict[str, list[str]] = {}
    for p in sorted(paths):
        m = DAY_FILE.match(p)
        if m and m.group(1) < boundary:
            found.setdefault(m.group(1), []).append(p)
    return found


def episodes(text: str) -> list[str]:
    """The episodes of a day file: its non-blank lines, without line endings."""
    return [ln.rstrip("\r") for ln in text.split("\n") if ln.strip()]


def missing(cold: list[str], lines: list[str]) -> list[str]:
    """The lines of `lines` that `cold` does not hold (counted: a line twice needs two)."""
    have = Counter(cold)
    out = []
    for ln in lines:
        if have[ln] > 0:
            have[ln] -= 1
        else:
            out.append(ln)
    return out


def roll_up(
    store: Store, today: date, *, author: Author = DREAMER, max_months: int = MAX_MONTHS
) -> list[Rolled]:
    """Roll every due month (at most `max_months`), oldest first; see the module docstring."""
    tip = store.tip()
    if tip is None:
        return []
    due = due_months(store.files("archive/", tip), today)
    cold = ColdStore(store)
    return [
        roll_month(store, cold, month, paths, tip, author=author)
        for month, paths in list(due.items())[:max_months]
    ]


def roll_month(
    store: Store, cold: ColdStore, month: str, paths: list[str], tip: str, *, author: Author
) -> Rolled:
    files = {p: b.decode("utf-8") for p, b in store.trees.some(tip, paths).items()}
    lines = [ln for p in sorted(files) for ln in episodes(files[p])]
    cold_tip, added = _into_cold(cold, month, files, author=author)
    digest = hashlib.sha256()
    for p in sorted(files):
        digest.update(f"{p}\0{len(files[p])}\0".encode() + files[p].encode())
    n = len(files)
    result = store.write(
        [DeleteFile(p) for p in sorted(files)],
        author=author,
        message=(
            f"archive: roll up {month} into cold storage ({len(lines)} episodes, {n} files)\n\n"
            f"The episodes are in {COLD_REF} at {cold_tip}, months/{month}.jsonl.gz; "
            "`hippo search --archive` finds them there. Reverting this commit puts the files back."
        ),
        key=f"archive:rollup:{month}:{digest.hexdigest()[:32]}",
        trailers={"Hippo-Archive-Cold": cold_tip, "Hippo-Archive-Month": month},
    )
    if result.created:  # what the deletion removed is the parent's version: roll that too
        before = {p: store.read_or_none(p, f"{result.commit}^") for p in files}
        late = {p: t for p, t in before.items() if t is not None and t != files[p]}
        if late:
            cold_tip, more = _into_cold(cold, month, late, author=author)
            added += more
    return Rolled(month, n, len(lines), added, cold_tip, result.commit, result.created)


def _into_cold(
    cold: ColdStore, month: str, files: dict[str, str], *, author: Author
) -> tuple[str, int]:
    """Merge the day files into the cold month; (the cold tip holding them all, lines added)."""
    lines = [ln for p in sorted(files) for ln in episodes(files[p])]
    for _ in range(TRIES):
        old = cold.fetch()
        held = cold.month_lines(old, month)
        new = missing(held, lines)
        if not new and old is not None and month in cold.months(old):
            return old, 0
        index = cold.index(old)
        entry = index.setdefault("months", {}).setdefault(month, {"days": {}})
        for p in sorted(files):
            day = p.removeprefix("archive/").removesuffix(".jsonl")
            entry["days"][day] = entry["days"].get(day, 0) + len(missing(held, episodes(files[p])))
        entry["episodes"] = len(held) + len(new)
        message = f"archive: {month}, {len(new)} episodes added ({entry['episodes']} in all)"
        made = cold.commit(old, month, held + new, index, author=author, message=message)
        if cold.advance(made, old):
            _check(cold, made, month, lines)
            return made, len(new)
    raise RemoteError(f"{COLD_REF} kept moving while rolling up {month}; try again later")


def _check(cold: ColdStore, commit: str, month: str, lines: list[str]) -> None:
    """Every episode of `lines` is in the cold month at `commit`, counted."""
    gone = missing(cold.month_lines(commit, month), lines)
    if gone:
        raise EpisodesMissing(
            f"the cold archive's {month} lacks {len(gone)} of {len(lines)} episodes; "
            "the day files were left in place"
        )
