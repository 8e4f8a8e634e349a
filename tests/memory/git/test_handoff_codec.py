"""Handed-off writes and outcomes as JSON (memory/git/handoff.py): what a holder reads
back is the write that was offered, and only hippo's own types are ever read back."""

from __future__ import annotations

import json

import pytest

from memory.errors import SecretFound, TooLarge
from memory.format import parse_entry
from memory.git import Author, WriteResult
from memory.git.batch import WriteRequest
from memory.git.handoff import dump_outcome, dump_request, load_outcome, load_request
from memory.writes import AddEntry, MoveFile, ReplaceEntry


def test_a_request_comes_back_as_it_was_offered() -> None:
    ops = [
        AddEntry("inbox.md", "a fact", (("added", "2026-12-01"), ("by", "ann")), title="Inbox"),
        ReplaceEntry("a.md", "old", "new", (("source", "x; y"),)),
        MoveFile("a.md", "b/a.md"),
    ]
    author = Author("agent", "a@x", role="agent", origin="https://slack/p1")
    request = WriteRequest(ops, author, "msg", None, {"Hippo-Source": "s"}, True, revert="abc")
    back = load_request(dump_request(request, "handoff:t1"))
    assert back.ops == ops and back.author == author and back.key == "handoff:t1"
    assert (back.message, dict(back.trailers), back.force, back.revert) == (
        "msg",
        {"Hippo-Source": "s"},
        True,
        "abc",
    )


def test_outcomes_keep_their_type_message_and_fields() -> None:
    entry = parse_entry("- gone fact [added: 2026-12-01]")
    assert entry is not None
    result = WriteResult("c0ffee", True, removed=(("inbox.md", entry),), paths=("inbox.md",))
    assert load_outcome(dump_outcome(result)) == result
    for error in (SecretFound("AWS key", "inbox.md"), TooLarge("an entry", 9000, 8000)):
        back = load_outcome(dump_outcome(error))
        assert type(back) is type(error) and str(back) == str(error)
        assert vars(back) == vars(error)


def test_only_hippos_own_types_are_read_back() -> None:
    offered = json.loads(
        dump_request(WriteRequest([], Author("a", "a@x"), "m", None, {}, False), "k")
    )
    offered["ops"] = [{"type": "Popen", "fields": {"args": ["rm", "-rf", "/"]}}]
    with pytest.raises(ValueError, match="not a handed-off type"):
        load_request(json.dumps(offered))
