"""A thread's episode as a case (memory/episodes.py): the rules' fields without an LLM, the
model's fields filled by the rules where it left gaps, and lenient reading of any archive line."""

from __future__ import annotations

import json

from memory import episodes
from memory.dream.daily import Episode
from memory.episodes import Case


def test_a_written_answer_that_saved_something() -> None:
    """Problem: the question; approach: searched, read, edited; outcome: the answer's first
    sentence and the commit; evidence: sources first, then the files and hits."""
    case = episodes.from_turn(
        question="why does checkout-api return 504s\nafter deploys?",
        answer="Cold caches after deploys. Warming them stops the 504s.",
        files_read=["services/checkout-api.md"],
        hits=["services/checkout-api.md:3"],
        files_touched=["services/checkout-api.md"],
        commit="0123456789abcdef",
        refused=[("preferences/channels/C1.md", "agents may not write preferences/")],
        sources=["https://x/pr/1"],
    )
    assert case.problem == "why does checkout-api return 504s after deploys?"
    assert case.approach == (
        "searched memory (1 hits, best services/checkout-api.md:3); "
        "read services/checkout-api.md; edited services/checkout-api.md"
    )
    assert case.outcome == (
        "Cold caches after deploys; saved to services/checkout-api.md (commit 01234567); "
        "not saved to preferences/channels/C1.md: agents may not write preferences/"
    )
    assert case.evidence == (
        "https://x/pr/1",
        "services/checkout-api.md",
        "services/checkout-api.md:3",
    )


def test_no_written_answer_says_so() -> None:
    """Without a key there is no answer to quote: the outcome says what was shown instead."""
    found = episodes.from_turn(
        question="q", answer=None, files_read=[], hits=["a.md:1", "b.md:2"],
        files_touched=[], commit=None,
    )  # fmt: skip
    assert found.outcome == "no written answer (no API key); showed 2 search hits"
    none = episodes.from_turn(
        question="q", answer=None, files_read=[], hits=[], files_touched=[], commit=None
    )
    assert none.approach == "answered from the memory snapshot alone"
    assert none.outcome == "no written answer (no API key); nothing in memory matched"
    assert none.evidence == ()


def test_the_models_case_is_filled_by_the_rules_where_empty() -> None:
    model = Case(problem="504s after deploys", outcome="", evidence=("the deploy runbook",))
    rules = Case("q", "searched memory", "Cold caches.", ("https://x/pr/1", "the deploy runbook"))
    assert model.filled_from(rules) == Case(
        "504s after deploys", "searched memory", "Cold caches.",
        ("the deploy runbook", "https://x/pr/1"),
    )  # fmt: skip


def test_old_and_odd_archive_lines_read_as_an_empty_case() -> None:
    """A line archived before the fields existed, or with the wrong types, reads without error."""
    old = {"type": "thread", "question": "why?", "remember": ["x"], "files_touched": []}
    assert episodes.read(old) == Case() and not episodes.read(old)
    odd = {"problem": 3, "approach": None, "outcome": "ok", "evidence": ["a", 4, "", "a"]}
    assert episodes.read(odd) == Case(outcome="ok", evidence=("a",))
    assert episodes.read({"problem": "p " * 400}).problem.endswith("…")
    new = json.loads(json.dumps({"type": "thread", **Case("p", "a", "o", ("e",)).as_dict()}))
    assert Episode("thread", "2026-12-01", "", (), new).case == Case("p", "a", "o", ("e",))
    assert Episode("thread", "2026-12-01", "", (), old).case == Case()
