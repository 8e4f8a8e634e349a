"""Saving notes and forgetting facts: routing, validation, tombstones, ambiguity."""

from __future__ import annotations

import pytest

from memory import notes, writes
from memory.errors import NoteRejected, SecretFound, TombstoneConflict
from memory.git import Author, Store

ME = Author("U024BE7LH", "U024BE7LH@slack.hippo.invalid")


@pytest.fixture
def store(store: Store) -> Store:
    """Seeded with the topic a note names."""
    s = store
    s.write(
        [writes.WriteFile("services/checkout-api.md", "# checkout-api: the checkout service\n")],
        author=ME,
        message="topic",
    )
    return s


def test_note_goes_to_the_topic_it_names(store: Store) -> None:
    """A note naming checkout-api lands in services/checkout-api.md with source, added, by."""
    saved = notes.save_note(
        store,
        "checkout-api 504s come from the vendor sandbox",
        today="2026-11-30",
        author=ME,
        source="https://x.slack.com/archives/C1/p1",
        by="U024BE7LH",
        key="Ev1",
    )
    assert saved.path == "services/checkout-api.md"
    assert store.read(saved.path).endswith(
        "- checkout-api 504s come from the vendor sandbox "
        "[source: https://x.slack.com/archives/C1/p1; added: 2026-11-30; by: U024BE7LH]\n"
    )


def test_note_without_a_topic_goes_to_inbox(store: Store) -> None:
    """A note that names no topic goes to inbox.md."""
    saved = notes.save_note(
        store, "the nightly batch alert is expected", today="2026-11-30", author=ME
    )
    assert saved.path == "inbox.md"
    assert "- the nightly batch alert is expected [added: 2026-11-30]" in store.read("inbox.md")


def test_topic_names_must_be_whole_words() -> None:
    """'api' inside 'checkout-api-v2' does not match a file named api.md; the longest subject wins."""
    tree = {
        "services/api.md": b"",
        "services/checkout-api.md": b"",
        "MEMORY.md": b"",
        "inbox.md": b"",
    }
    assert notes.choose_topic(tree, "the checkout-api is slow") == "services/checkout-api.md"
    assert notes.choose_topic(tree, "checkout-api-v2 is new") == "inbox.md"
    assert notes.choose_topic(tree, "the API is slow") == "services/api.md"


def test_topic_names_with_dots_or_spaces_match_as_whole_words_too() -> None:
    """A file name with characters other than letters, digits and hyphens (node.js, a name with
    a space) is matched by the same whole-word rule among thousands of other topics."""
    tree = {f"t/topic-{i}.md": b"" for i in range(5000)} | {
        "libs/node.js.md": b"",
        "teams/data platform.md": b"",
    }
    assert notes.choose_topic(tree, "node.js 22 breaks the build") == "libs/node.js.md"
    assert notes.choose_topic(tree, "xnode.js is another thing") == "inbox.md"
    assert notes.choose_topic(tree, "ask the Data Platform team") == "teams/data platform.md"
    assert notes.choose_topic(tree, "topic-4999 and topic-12 agree") == "t/topic-4999.md"


@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("   ", NoteRejected, "empty"),
        ("x" * 4001, NoteRejected, "4,001 characters; the limit is 4,000"),
        ("our token is xoxb-1234567890-abcdefghij", SecretFound, "Slack token"),
    ],
)
def test_bad_notes_say_why_and_commit_nothing(
    store: Store, text: str, error: type, words: str
) -> None:
    """Empty, oversized and secret-bearing notes are refused with a reason; no commit."""
    head = store.head()
    with pytest.raises(error, match=words):
        notes.save_note(store, text, today="2026-11-30", author=ME)
    assert store.sync() == head


def test_forget_removes_and_tombstones(store: Store) -> None:
    """forget removes the one matching entry and records it in forgotten.md with who, when, why."""
    notes.save_note(
        store,
        "the nightly batch alert is expected",
        today="2026-11-01",
        author=ME,
        source="https://s/p9",
    )
    out = notes.forget(
        store,
        "that the batch alert is expected",
        today="2026-11-30",
        author=ME,
        by="U1",
        reason="it pages now",
    )
    assert out.status == "removed" and out.result is not None
    assert "batch alert" not in store.read("inbox.md")
    stone = store.read("forgotten.md")
    assert (
        "- the nightly batch alert is expected [removed: 2026-11-30; by: U1; reason: it pages now; source: https://s/p9; scope: inbox.md]"
        in stone
    )
    with pytest.raises(TombstoneConflict, match="it pages now"):
        notes.save_note(
            store, "The nightly batch alert is expected.", today="2026-11-30", author=ME
        )


def test_forget_with_several_matches_asks_first(store: Store) -> None:
    """Two matches and no pick: nothing is removed; a pick removes only what was chosen."""
    notes.save_note(store, "deploys freeze on fridays", today="2026-11-30", author=ME)
    notes.save_note(store, "deploys freeze during the holidays", today="2026-11-30", author=ME)
    head = store.head()
    out = notes.forget(store, "deploys freeze", today="2026-11-30", author=ME)
    assert out.status == "ambiguous" and len(out.matches) == 2
    assert store.sync() == head
    out = notes.forget(
        store,
        "deploys freeze",
        today="2026-11-30",
        author=ME,
        pick=[("inbox.md", "deploys freeze on fridays")],
    )
    assert out.status == "removed"
    assert "fridays" not in store.read("inbox.md") and "holidays" in store.read("inbox.md")


def test_forget_nothing_matches(store: Store) -> None:
    """A forget that matches nothing says so and commits nothing."""
    assert notes.forget(store, "unicorns", today="2026-11-30", author=ME).status == "none"
