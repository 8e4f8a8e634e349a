"""Search over history (memory/git/changes.py): who added, changed or removed an entry, why and
on what evidence, against a real store and bare remote."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory import notes
from memory import writes as ops
from memory.errors import NoteRejected
from memory.git import Author, Store, changes

ALICE = Author("alice", "alice@example.com")
BOB = Author("bob", "bob@example.com")
CAROL = Author("carol", "carol@example.com")
URL = "https://github.com/acme/api/pull/7"


def _story(store: Store) -> list[str]:
    """Alice learns a fact, Bob corrects it with a reason, Carol forgets it; noise between."""
    add = [ops.AddEntry("services/api.md", "deploys use blue-green", (("source", URL),))]
    r1 = store.write(add, author=ALICE, message="note: deploys")
    store.write(
        [ops.AddEntry("services/db.md", "the primary is in eu-west")], author=BOB, message="db"
    )
    fix = [ops.ReplaceEntry("services/api.md", "deploys use blue-green", "deploys use canary")]
    r3 = store.write(fix, author=BOB, message="correct the deploy\n\nwe moved to canary in March")
    gone = notes.forget(
        store, "deploys use canary", today="2026-12-01", author=CAROL, by="carol", reason="stale"
    )
    assert gone.status == "removed" and gone.result is not None
    return [gone.result.commit, r3.commit, r1.commit]


def test_added_changed_removed_with_author_reason_and_evidence(store: Store) -> None:
    """The three commits that touched the fact come back newest first, each with its author,
    what it did to the entry, its reason and its evidence; the commit about the db does not."""
    shas = _story(store)
    found = store.search_history(changes.needles("deploys"), limit=10)
    assert [c.commit.sha for c in found.changes] == shas
    forgot, fixed, added = found.changes
    assert forgot.commit.author == "carol"
    assert ("services/api.md", "removed", "deploys use canary") in [
        (e.path, e.action, e.text) for e in forgot.entries
    ]
    assert "stale" in forgot.reason  # the tombstone's reason
    assert fixed.commit.author == "bob"
    [edit] = fixed.entries
    assert (edit.action, edit.before, edit.text) == (
        "changed",
        "deploys use blue-green",
        "deploys use canary",
    )
    assert fixed.reason == "we moved to canary in March"
    assert added.commit.author == "alice" and added.entries[0].action == "added"
    assert added.evidence == [URL]
    assert added.as_dict()["entries"][0]["meta"] == {"source": URL}


def test_words_phrases_exact_and_bounds(store: Store) -> None:
    """Every word must be in one entry; a phrase as written; limit and since bound the walk."""
    shas = _story(store)
    assert [c.commit.sha for c in store.search_history(["blue-green"], limit=10).changes] == shas[
        1:
    ]
    assert store.search_history(changes.needles('"canary deploys"'), limit=10).changes == []
    assert changes.needles("Deploys  Canary") == ["deploys", "canary"]
    assert changes.needles(" use canary ", exact=True) == ["use canary"]
    assert len(store.search_history(["deploys"], limit=1).changes) == 1
    later = datetime.now(UTC) + timedelta(days=1)
    assert store.search_history(["deploys"], limit=10, since=later).changes == []
    earlier = datetime.now(UTC) - timedelta(days=1)
    assert len(store.search_history(["deploys"], limit=10, since=earlier).changes) == 3


def test_no_words_is_recent_activity_or_a_files_history(store: Store) -> None:
    """No words: every commit (init included) with the paths it changed; with a path, only the
    commits that changed that file."""
    _story(store)
    every = store.search_history([], limit=50)
    assert len(every.changes) == 5 and every.complete
    assert every.changes[2].paths == ["services/db.md"]
    assert every.changes[2].commit.author == "bob"
    db = store.search_history([], limit=50, path="services/db.md")
    assert [c.commit.summary for c in db.changes] == ["db"]
    assert db.changes[0].entries[0].text == "the primary is in eu-west"


def test_the_walk_stops_at_scan_and_says_so(store: Store) -> None:
    _story(store)
    found = changes.search(store.mirror.repo, store.head(), ["nothing like this"], scan=2)
    assert (found.scanned, found.complete, found.changes) == (2, False, [])


def test_moved_entries_are_no_change_and_near_copies_are_edits() -> None:
    before = "# T\n\n- one fact\n- the queue drains before deploy\n"
    moved = "# T\n\n- the queue drains before deploy\n- one fact\n"
    assert changes.entry_changes("t.md", before, moved) == []
    edited = "# T\n\n- one fact\n- the queue drains before a deploy\n- new\n"
    got = [(e.action, e.text, e.before) for e in changes.entry_changes("t.md", before, edited)]
    assert got == [
        ("changed", "the queue drains before a deploy", "the queue drains before deploy"),
        ("added", "new", ""),
    ]


def test_a_bad_since_is_a_clear_refusal() -> None:
    assert changes.parse_since("2026-11-01") == datetime(2026, 11, 1, tzinfo=UTC)
    with pytest.raises(NoteRejected, match="YYYY-MM-DD"):
        changes.parse_since("last tuesday")


def test_a_dream_body_keeps_the_lines_about_the_hit(store: Store) -> None:
    """A dream step's body lists every change with its evidence: a search keeps the item about
    the matching entry (and its evidence), not the other items."""
    seed = [ops.AddEntry("t.md", "the flag beta-x is on"), ops.AddEntry("t.md", "ci uses 2 cores")]
    store.write(seed, author=ALICE, message="seed")
    body = (
        "dream(corrections): 2 entries deleted\n\n"
        "checked against GitHub\n"
        "- deleted t.md: 'the flag beta-x is on'\n"
        "  evidence: https://github.com/acme/api/pull/12\n"
        "- deleted t.md: 'ci uses 2 cores'\n"
        "  evidence: https://github.com/acme/ci/pull/3"
    )
    gone = [
        ops.RemoveEntry("t.md", "the flag beta-x is on"),
        ops.RemoveEntry("t.md", "ci uses 2 cores"),
    ]
    store.write(gone, author=ALICE, message=body)
    [hit] = store.search_history(["beta-x"], limit=1).changes
    assert (
        hit.reason
        == "checked against GitHub\n- deleted t.md: 'the flag beta-x is on'\n  evidence: https://github.com/acme/api/pull/12"
    )
    assert hit.evidence == ["https://github.com/acme/api/pull/12"]
    [every] = store.search_history([], limit=1).changes
    assert "ci uses 2 cores" in every.reason  # no words: the whole body
