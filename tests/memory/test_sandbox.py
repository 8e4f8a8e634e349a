"""A thread's working copy: its edits become attributed entry operations, pushed by code."""

from __future__ import annotations

from pathlib import Path

import pytest

from memory.errors import RemoteError
from memory.git import Author, Store
from memory.trust import sandbox
from memory.writes import AddEntry, AppendLine, DeleteFile, RemoveEntry, ReplaceEntry, WriteFile

WHO = sandbox.Attribution("https://x.slack.com/archives/C1/p1", "hippo for U1", "2026-11-30")
HIPPO = Author("hippo for U1", "hippo@hippo.invalid")
TOPIC = "# checkout-api\n\n- 504s come from the vendor sandbox [source: s1]\n- runs on k8s\n"


@pytest.fixture
def store(store: Store) -> Store:
    """Seeded with the topic the sandbox plans against."""
    s = store
    s.write([WriteFile("services/checkout-api.md", TOPIC)], author=HIPPO, message="seed")
    return s


def _plan(old: str | None, new: str | None, path: str = "services/checkout-api.md") -> list:
    base = {} if old is None else {path: old.encode()}
    work = {} if new is None else {path: new.encode()}
    return sandbox.plan(base, work, WHO).ops


def test_an_added_line_becomes_an_attributed_add_entry() -> None:
    """A new bullet in a markdown file → AddEntry with source, added and by."""
    ops = _plan(TOPIC, TOPIC + "- retries are capped at 3\n")
    assert ops == [
        AddEntry(
            "services/checkout-api.md",
            "retries are capped at 3",
            (("source", WHO.source), ("added", "2026-11-30"), ("by", "hippo for U1")),
        )
    ]


def test_a_changed_entry_becomes_replace_and_a_removed_one_remove() -> None:
    """Changed text → ReplaceEntry (old sources kept, thread added); dropped line → RemoveEntry."""
    new = "# checkout-api\n\n- 504s come from the vendor sandbox under load [source: s1]\n"
    ops = _plan(TOPIC, new)
    assert ops[0] == ReplaceEntry(
        "services/checkout-api.md",
        "504s come from the vendor sandbox",
        "504s come from the vendor sandbox under load",
        (("source", "s1"), ("source", WHO.source), ("added", "2026-11-30"), ("by", "hippo for U1")),
    )
    assert ops[1] == RemoveEntry("services/checkout-api.md", "runs on k8s")


def test_new_and_deleted_files_become_write_and_delete() -> None:
    """A new file → WriteFile with its entries attributed; a removed file → DeleteFile."""
    (op,) = _plan(None, "# a\n\n- fact one\n", "services/a.md")
    assert isinstance(op, WriteFile)
    assert op.content.splitlines()[2].startswith("- fact one [source: https://x.slack.com")
    assert _plan(TOPIC, None) == [DeleteFile("services/checkout-api.md")]


def test_restructured_markdown_falls_back_to_write_file() -> None:
    """A heading change cannot be said with entry operations: the whole file is written."""
    (op,) = _plan(TOPIC, TOPIC.replace("# checkout-api", "# checkout-api (payments)"))
    assert isinstance(op, WriteFile) and "(payments)" in op.content


def test_archive_takes_appends_only() -> None:
    """archive/*.jsonl: new lines at the end → AppendLine; a rewrite is refused."""
    path = "archive/2026-11-30.jsonl"
    assert _plan('{"a":1}\n', '{"a":1}\n{"b":2}\n', path) == [AppendLine(path, '{"b":2}')]
    refused = sandbox.plan({path: b'{"a":1}\n'}, {path: b'{"a":2}\n'}, WHO).refused
    assert refused and "append-only" in refused[0][1]


def test_check_refuses_secrets_tombstones_and_dream_one_by_one() -> None:
    """Bad operations are refused with the reason while the good ones are kept."""
    stones = "# Forgotten\n\n- the old VPN host is vpn1 [removed: 2026-11-01; by: U2]\n"
    tree = {"forgotten.md": stones}
    ops = [
        AddEntry("a.md", "fine fact"),
        AddEntry("a.md", "token ghp_" + "a" * 36),
        AddEntry("b.md", "The old VPN host is vpn1"),
        WriteFile(".dream/state.json", "{}"),
    ]
    checked = sandbox.check(ops, tree.get)
    assert checked.ops == [AddEntry("a.md", "fine fact")]
    reasons = " ".join(why for _, why in checked.refused)
    assert "GitHub" in reasons or "token" in reasons
    assert "forgotten" in reasons and ".dream" in reasons


def test_push_commits_the_edits_attributed_and_drops_the_copy(store: Store, tmp_path: Path) -> None:
    """push writes one commit (key and source trailers), then the working copy is gone."""
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    target = copy.root / "services" / "checkout-api.md"
    target.write_text(TOPIC + "- retries are capped at 3\n")
    pushed = sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev1")
    assert pushed.commit == store.head() and pushed.paths == ("services/checkout-api.md",)
    info = store.log(limit=1)[0]
    assert info.author == "hippo for U1"
    assert info.trailers["Hippo-Key"] == "Ev1"
    assert info.trailers["Hippo-Source"] == WHO.source
    assert "[source: https://x.slack.com/archives/C1/p1; added: 2026-11-30; by: hippo for U1]" in (
        store.read("services/checkout-api.md")
    )
    assert not copy.exists


def test_push_applies_to_the_newest_tip_without_clobbering(store: Store, tmp_path: Path) -> None:
    """An entry someone else added after the copy was made survives the agent's edit."""
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    store.write([AddEntry("services/checkout-api.md", "someone else's fact")], author=HIPPO,
                message="meanwhile")  # fmt: skip
    (copy.root / "services" / "checkout-api.md").write_text(TOPIC + "- agent fact\n")
    sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev2")
    text = store.read("services/checkout-api.md")
    assert "someone else's fact" in text and "agent fact" in text


def test_a_failed_push_keeps_the_working_copy(tmp_path: Path, store: Store) -> None:
    """When the remote cannot be reached the edits stay on disk for the retry."""
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    (copy.root / "new.md").write_text("# new\n\n- kept\n")
    Path(store.remote).rename(tmp_path / "moved.git")
    with pytest.raises(RemoteError):
        sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev3")
    assert copy.exists and (copy.root / "new.md").read_text() == "# new\n\n- kept\n"


def test_nothing_changed_pushes_nothing(store: Store, tmp_path: Path) -> None:
    """An untouched working copy makes no commit."""
    head = store.head()
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), head)
    pushed = sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev4")
    assert pushed.commit is None and store.head() == head


def test_an_entry_changed_meanwhile_is_refused_and_the_rest_pushed(
    store: Store, tmp_path: Path
) -> None:
    """The agent edited an entry someone removed since: that edit is refused, not guessed."""
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    store.write([RemoveEntry("services/checkout-api.md", "runs on k8s")], author=HIPPO,
                message="meanwhile")  # fmt: skip
    edited = TOPIC.replace("runs on k8s", "runs on k8s in eu-west-1") + "- a new fact\n"
    (copy.root / "services" / "checkout-api.md").write_text(edited)
    pushed = sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev5")
    ((path, why),) = pushed.refused
    assert path == "services/checkout-api.md" and "another writer" in why
    text = store.read("services/checkout-api.md")
    assert "a new fact" in text and "k8s" not in text


def test_a_rewritten_big_file_is_pushed_quickly_entry_by_entry(
    store: Store, tmp_path: Path
) -> None:
    """Hundreds of edited entries in one file: entry operations, attributed, pushed quickly."""
    import time

    old = "# big\n\n" + "".join(f"- fact number {i}\n" for i in range(2000))
    store.write([WriteFile("big.md", old)], author=HIPPO, message="big")
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    new = old.replace("- fact number 1", "- fact Number one") + "".join(
        f"- added fact {i}\n" for i in range(300)
    )
    (copy.root / "big.md").write_text(new)
    started = time.perf_counter()
    pushed = sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev6")
    assert time.perf_counter() - started < 10 and not pushed.refused
    text = store.read("big.md")
    assert "- fact number 0\n" in text and "- fact number 2\n" in text
    assert f"- added fact 299 [source: {WHO.source}; added: 2026-11-30; by: hippo for U1]" in text
    assert f"- fact Number one7 [source: {WHO.source}" in text


def test_a_big_rewrite_of_a_file_changed_meanwhile_keeps_entry_operations(
    store: Store, tmp_path: Path
) -> None:
    """When someone else changed that file since, entry operations keep their edit too."""
    old = "# big\n\n" + "".join(f"- fact number {i}\n" for i in range(40))
    store.write([WriteFile("big.md", old)], author=HIPPO, message="big")
    copy = sandbox.WorkingCopy(tmp_path / "wc")
    copy.create(store.tree(), store.head())
    store.write([AddEntry("big.md", "someone else's fact")], author=HIPPO, message="meanwhile")
    (copy.root / "big.md").write_text(old.replace("- fact number", "- fact no."))
    sandbox.push(store, copy, WHO, author=HIPPO, message="agent edits", key="Ev7")
    text = store.read("big.md")
    assert "someone else's fact" in text and "- fact no. 39 [source:" in text
