"""The archive's cold storage over a real git server (git daemon on loopback): old months leave
the tree for refs/hippo-cold/archive, every episode counted, searchable on purpose, idempotent,
revertable."""

from __future__ import annotations

import json
import subprocess
from datetime import date
from pathlib import Path

import pytest

from memory.archive.rollup import due_months, missing, roll_up
from memory.errors import AppendOnly
from memory.git import Author
from memory.git.batch import DREAMER
from memory.git.cold import COLD_REF, ColdStore
from memory.git.store import Store
from memory.writes.operations import AppendLine, DeleteFile
from tests.gitservers.daemon import GitDaemon

TODAY = date(2026, 12, 2)
PERSON = Author("Ana", "ana@example.com")
DAYS = ["2026-08-03", "2026-08-17", "2026-09-30", "2026-10-01", "2026-11-05", "2026-12-01"]


def _episode(day: str, n: int) -> str:
    words = "rollback" if n % 3 == 0 else "deploy"
    return json.dumps({"ts": f"{day}T10:00:{n:02d}Z", "problem": f"{words} case {day} {n}"})


@pytest.fixture
def remote(git_daemon_server: GitDaemon) -> str:
    return git_daemon_server.url("memory.git")


@pytest.fixture
def seeded(remote: str, tmp_path: Path) -> Store:
    """Episodes on six days; the same line twice on one day (two identical turns)."""
    store = Store.open(remote, tmp_path / "data")
    store.init()
    ops = [AppendLine(f"archive/{d}.jsonl", _episode(d, n) + "\n") for d in DAYS for n in range(4)]
    ops.append(AppendLine("archive/2026-08-03.jsonl", _episode("2026-08-03", 0) + "\n"))
    store.write(ops, author=PERSON, message="episodes")
    return store


def _tree_episodes(store: Store) -> list[str]:
    files = store.trees.some(store.head(), store.files("archive/"))
    return [ln for p in sorted(files) for ln in files[p].decode().splitlines() if ln.strip()]


def _cold_episodes(store: Store) -> list[str]:
    cold = ColdStore(store)
    tip = cold.fetch()
    return [ln for m in sorted(cold.months(tip)) for ln in cold.month_lines(tip, m)]


def test_due_months_are_those_before_last_month() -> None:
    paths = [f"archive/{d}.jsonl" for d in DAYS] + ["archive/notes.txt"]
    assert list(due_months(paths, TODAY)) == ["2026-08", "2026-09", "2026-10"]
    assert list(due_months(paths, date(2027, 1, 10))) == [
        "2026-08",
        "2026-09",
        "2026-10",
        "2026-11",
    ]
    assert missing(["a", "b", "a"], ["a", "a", "a", "c"]) == ["a", "c"]


def test_rollup_moves_old_months_to_the_cold_ref_and_loses_nothing(
    seeded: Store, remote: str, tmp_path: Path
) -> None:
    before = _tree_episodes(seeded)
    rolled = roll_up(seeded, TODAY)
    assert [r.month for r in rolled] == ["2026-08", "2026-09", "2026-10"]
    assert [r.episodes for r in rolled] == [9, 4, 4] and all(r.created for r in rolled)
    left = seeded.files("archive/")
    assert left == ["archive/2026-11-05.jsonl", "archive/2026-12-01.jsonl"]
    after = _tree_episodes(seeded) + _cold_episodes(seeded)
    assert sorted(after) == sorted(before)  # counted: the twice-written line is there twice
    # Each roll-up is its own commit by the dreaming identity, naming the cold commit.
    log = seeded.log(limit=3)
    assert [c.message.splitlines()[0][:26] for c in log] == [
        "archive: roll up 2026-10 i",
        "archive: roll up 2026-09 i",
        "archive: roll up 2026-08 i",
    ]
    # The server holds the cold ref; a plain clone of the memory does not carry it.
    heads = subprocess.run(["git", "ls-remote", remote], capture_output=True, text=True).stdout
    assert COLD_REF in heads
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", remote, str(clone)], check=True)
    refs = subprocess.run(
        ["git", "-C", str(clone), "for-each-ref"], capture_output=True, text=True
    ).stdout
    assert "hippo-cold" not in refs
    assert not (clone / "archive" / "2026-08-03.jsonl").exists()
    # Nor does hippo's first fetch into a fresh cache.
    fresh = Store.open(remote, tmp_path / "other")
    fresh.sync()
    assert fresh.mirror.repo.references.get(COLD_REF) is None


def test_rollup_is_idempotent_and_a_redelivery_changes_nothing(seeded: Store) -> None:
    tip_before = seeded.head()
    paths = seeded.files("archive/2026-08")
    first = roll_up(seeded, TODAY)
    head, cold = seeded.head(), ColdStore(seeded).fetch()
    assert roll_up(seeded, TODAY) == []  # nothing left to roll
    assert (seeded.head(), ColdStore(seeded).fetch()) == (head, cold)
    # The same roll-up delivered again, from the tip it was first computed on: same key.
    from memory.archive.rollup import roll_month

    again = roll_month(seeded, ColdStore(seeded), "2026-08", paths, tip_before, author=DREAMER)
    assert not again.created and again.commit == first[0].commit and again.added == 0
    assert (seeded.head(), ColdStore(seeded).fetch()) == (head, cold)


def test_the_archive_is_searchable_on_purpose_only(seeded: Store, tmp_path: Path) -> None:
    roll_up(seeded, TODAY)
    assert seeded.search("rollback", archive=False) == []
    found = seeded.search("rollback 2026-08-17", archive=True, limit=50)
    paths = {h.path for h in found}
    assert "refs/hippo-cold/archive:months/2026-08.jsonl.gz" in paths  # cold
    assert "archive/2026-11-05.jsonl" in paths  # still in the tree
    cold = [h for h in found if h.path == "refs/hippo-cold/archive:months/2026-08.jsonl.gz"]
    month = ColdStore(seeded).month_lines(ColdStore(seeded).fetch(), "2026-08")
    assert all(month[h.line - 1] == h.text for h in cold)  # the line number is the month file's
    assert "2026-08-17" in cold[0].text
    strict = seeded.search("rollback 2026-08-17", archive=True, all_words=True, limit=50)
    assert strict and all("rollback" in h.text and "2026-08-17" in h.text for h in strict)
    # Another process's cache: the first search on purpose fetches the cold months.
    other = Store.open(seeded.remote, tmp_path / "elsewhere")
    assert any(h.path.endswith(".gz") for h in other.search("rollback", archive=True, limit=50))


def test_reverting_a_rollup_restores_the_files_and_the_revert_sticks(seeded: Store) -> None:
    before = sorted(seeded.files("archive/2026-08"))
    texts = {p: seeded.read(p) for p in before}
    rolled = roll_up(seeded, TODAY)
    cold_tip = ColdStore(seeded).fetch()
    august = next(r for r in rolled if r.month == "2026-08")
    assert august.commit is not None
    seeded.revert(august.commit, PERSON)
    assert sorted(seeded.files("archive/2026-08")) == before
    assert {p: seeded.read(p) for p in before} == texts
    assert roll_up(seeded, TODAY)[0].created is False  # same files, same key: stays reverted
    assert sorted(seeded.files("archive/2026-08")) == before
    assert ColdStore(seeded).fetch() == cold_tip
    # A line added since to a restored file is new: rolled again, added to the cold month once.
    seeded.write(
        [AppendLine(before[0], _episode("2026-08-03", 9) + "\n")], author=PERSON, message="late"
    )
    again = roll_up(seeded, TODAY)
    assert again[0].created and again[0].added == 1
    assert seeded.files("archive/2026-08") == []
    assert len([e for e in _cold_episodes(seeded) if "2026-08" in e]) == 10


def test_only_the_dreaming_identity_deletes_archive_files(seeded: Store) -> None:
    with pytest.raises(AppendOnly):
        seeded.write([DeleteFile("archive/2026-08-03.jsonl")], author=PERSON, message="rm")
    agent = Author("claude", "agent@hippo.invalid", role="agent")
    with pytest.raises(Exception, match="archive"):
        seeded.write([DeleteFile("archive/2026-08-03.jsonl")], author=agent, message="rm")
    assert "archive/2026-08-03.jsonl" in seeded.files("archive/")


def test_the_cold_ref_moves_by_compare_and_swap(seeded: Store, remote: str, tmp_path: Path) -> None:
    """Two writers of the cold ref: the one that built on a stale tip is refused, and nothing
    the other pushed is overwritten."""
    roll_up(seeded, TODAY)
    other = ColdStore(Store.open(remote, tmp_path / "other"))
    stale = other.fetch()
    mine = ColdStore(seeded)
    tip = mine.fetch()
    assert stale == tip is not None
    made = mine.commit(tip, "2026-07", ["{}"], mine.index(tip), author=DREAMER, message="m")
    assert mine.advance(made, tip)
    late = other.commit(stale, "2026-06", ["{}"], other.index(stale), author=DREAMER, message="m")
    assert not other.advance(late, stale)
    assert other.fetch() == made and "2026-08" in other.months(made)
