"""Records nobody uses: files unread for 60 days that nothing can verify are listed in the
digest, each with a Forget button; nothing is deleted without a person."""

from __future__ import annotations

from datetime import date, datetime
from pathlib import Path

import fakeredis

from jobs.read_counts import count_read, last_reads
from memory import format as fmt
from memory.dream import digest, unused
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.notes import forget_file
from memory.writes import WriteFile

ALICE = Author("alice", "alice@example.com")
TODAY = date(2026, 11, 30)
TREE = {
    "teams/old.md": "# Old\n\n- the old wiki lives on the shared drive [added: 2026-01-10]\n",
    "teams/read.md": "# Read\n\n- standup is at 9:30 [added: 2026-01-10]\n",
    "teams/claims.md": "# Claims\n\n- the fee fix is acme/api#4, merged [added: 2026-01-10]\n",
    "teams/new.md": "# New\n\n- the new wiki is in Notion [added: 2026-11-20]\n",
    "MEMORY.md": "# Memory\n\n- ask before deploying [added: 2026-01-01]\n",
}


def test_candidates_are_unread_old_and_unverifiable() -> None:
    """Unread for 60 days and no claim: listed. Read recently, verifiable, or new: not."""
    reads = {"": "2026-01-01", "teams/read.md": "2026-11-01", "teams/claims.md": "2026-01-01"}
    assert unused.candidates(TREE, reads, TODAY) == ["teams/old.md"]
    reads["teams/read.md"] = "2026-09-01"
    assert unused.candidates(TREE, reads, TODAY) == ["teams/old.md", "teams/read.md"]


def test_never_read_means_nothing_until_reads_were_dated_long_enough() -> None:
    """Just after deployment nobody's reads are known: a never-read file is not listed until
    reads have been dated for 60 days; one read long ago still is."""
    reads = {"": "2026-11-01", "teams/read.md": "2026-09-01"}
    assert unused.candidates(TREE, reads, TODAY) == ["teams/read.md"]


def test_reads_remember_their_day() -> None:
    """count_read keeps the day of the last read per file, next to the count."""
    redis = fakeredis.FakeRedis()
    count_read(redis, "w", "teams/read.md", today="2026-10-01")
    count_read(redis, "w", "teams/read.md", today="2026-11-02")
    assert last_reads(redis, "w") == {"teams/read.md": "2026-11-02", "": "2026-10-01"}


def test_the_digest_lists_them_with_a_forget_button(tmp_path: Path) -> None:
    """A dream given the last reads lists the candidates; the digest offers Forget on each, and
    nothing was deleted."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write([WriteFile(p, t) for p, t in TREE.items()], author=ALICE, message="seed")
    report = dream(
        store,
        now=datetime(2026, 11, 30, 3),
        verifiers=Verifiers(),
        last_read={"": "2026-06-01", "teams/read.md": "2026-11-29"},
    )
    assert report.unused == ["teams/old.md"]
    assert store.read_or_none("teams/old.md") is not None
    buttons = [
        b["accessory"]
        for b in digest.blocks(report, console_url="http://h", workspace="w")
        if b.get("accessory", {}).get("action_id") == digest.FORGET_ACTION
    ]
    assert [b["value"] for b in buttons] == ["w|teams/old.md"]


def test_forgetting_a_file_tombstones_every_entry(tmp_path: Path) -> None:
    """The button's task removes the file; each entry is recorded in forgotten.md."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write([WriteFile(p, t) for p, t in TREE.items()], author=ALICE, message="seed")
    done = forget_file(
        store, "teams/old.md", by="U1", reason="unused", key="k", today="2026-11-30", author=ALICE
    )
    assert done is not None and store.read_or_none("teams/old.md") is None
    stone = fmt.parse(store.read("forgotten.md")).entries[0]
    assert stone.text == "the old wiki lives on the shared drive" and stone.get("by") == "U1"
    again = forget_file(
        store, "teams/old.md", by="U1", reason="unused", key="k2", today="2026-11-30", author=ALICE
    )
    assert again is None
