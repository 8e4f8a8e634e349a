"""tidy merges duplicates in inbox.md too, keeping the topic's copy and every source."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from memory import format as fmt
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile

NIGHT = datetime(2026, 11, 30, 3, 0)


def test_inbox_duplicates_merge_with_every_source(tmp_path: Path) -> None:
    """Two inbox notes of one fact become one entry; a topic's copy wins over the inbox's."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write(
        [
            WriteFile(
                "inbox.md",
                "# Inbox\n\n"
                "- staging database is rebuilt every Sunday at 06:00 UTC [source: https://a; added: 2026-11-30]\n"
                "- The staging database is rebuilt every Sunday, at 06:00 UTC. [source: https://b; added: 2026-11-30]\n"
                "- the nightly export lands in the data bucket [source: https://c; added: 2026-11-20]\n",
            ),
            WriteFile(
                "runbooks/export.md",
                "# Export\n\n- nightly export lands in the data bucket [source: https://d; added: 2026-11-29]\n",
            ),
        ],
        author=Author("a", "a@x"),
        message="seed",
    )
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert tidy.subject.startswith("dream(tidy): 2 duplicates merged")
    inbox = fmt.parse(store.read("inbox.md")).entries
    assert [e.get_all("source") for e in inbox] == [["https://a", "https://b"]]
    export = fmt.parse(store.read("runbooks/export.md")).entries
    assert [e.get_all("source") for e in export] == [["https://c", "https://d"]]


def test_an_inbox_note_goes_to_the_topic_its_subject_words_name(tmp_path: Path) -> None:
    """A note that names no file but shares two subject words with one topic (its file name's
    parts, its title) is filed there; one that two topics claim equally stays in the inbox
    (before: both stayed, as neither named a file whole)."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write(
        [
            WriteFile(
                "inbox.md",
                "# Inbox\n\n"
                "- the nightly batch alert fires twice on Sundays [added: 2026-11-20]\n"
                "- vendor payouts settle late on holidays [added: 2026-11-20]\n",
            ),
            WriteFile("runbooks/nightly-batch.md", "# Nightly batch: the reconciliation job\n"),
            WriteFile("teams/vendor-payouts.md", "# Vendor payouts team\n"),
            WriteFile("services/payouts-vendor.md", "# Payouts vendor API\n"),
        ],
        author=Author("a", "a@x"),
        message="seed",
    )
    dream(store, now=NIGHT, verifiers=Verifiers())
    filed = fmt.parse(store.read("runbooks/nightly-batch.md")).entries
    assert [e.text for e in filed] == ["the nightly batch alert fires twice on Sundays"]
    assert [e.text for e in fmt.parse(store.read("inbox.md")).entries] == [
        "vendor payouts settle late on holidays"
    ]
