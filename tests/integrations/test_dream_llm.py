"""Claude in the dream (integrations/dream_llm.py) through the real anthropic client against the
loopback fake: it calls the verifiers as tools, words the fix, writes the daily note; verdicts
come only from the verifiers, and an API failure falls back to the deterministic path."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import anthropic
import pytest

from integrations.dream_llm import UNAVAILABLE_AFTER, ClaudeDreamer
from memory import format as fmt
from memory.dream.daily import Episode
from memory.dream.run import dream
from memory.dream.verifiers import MemoryLinks, Verdict, Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.verifiers import TableVerifier


@pytest.fixture
def fake() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as f:
        yield f


def claude(fake: FakeAnthropic, table: dict[str, Verdict]) -> tuple[ClaudeDreamer, Verifiers]:
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    verifiers = Verifiers([TableVerifier("github", ["pr", "path", "repo"], table)])
    return ClaudeDreamer(client, verifiers, model="claude-haiku-5-5"), verifiers


def entry(text: str) -> fmt.Entry:
    return fmt.parse(f"- {text}\n").entries[0]


def test_claude_calls_the_verifier_and_words_the_fix(fake: FakeAnthropic) -> None:
    """A tool call reaches the verifier; the fixable verdict becomes Claude's corrected wording."""
    dreamer, verifiers = claude(fake, {"acme/api#12": Verdict.fixable("merged", "PR is merged")})
    fake.script(
        fake.tool_use(
            "check_pull_request", {"repo": "acme/api", "number": 12, "stated_state": "open"}
        ),
        fake.text('{"fixed_text": "the retry fix acme/api#12 was merged"}'),
    )
    pairs = dreamer.check("services/api.md", entry("the retry fix acme/api#12 is still open"))
    assert verifiers.calls == 1
    ((_claim, verdict),) = pairs
    assert (verdict.status, verdict.fix, verdict.evidence) == (
        "fixable",
        "the retry fix acme/api#12 was merged",
        "PR is merged",
    )
    result = json.loads(fake.requests[1]["messages"][2]["content"][0]["content"])
    assert result == {"status": "fixable", "evidence": "PR is merged", "correct_value": "merged"}
    assert fake.requests[0]["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert dreamer.usage()["calls"] == 2


def test_claude_checks_memory_links_with_the_links_verifier(fake: FakeAnthropic) -> None:
    """A [[link]] to a renamed file: check_link reaches the memory-links verifier, which sees the
    rename; the fix is Claude's wording with the new path."""
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    renames = {"teams/billing.md": "teams/invoicing.md"}
    links = MemoryLinks(lambda p: p == "teams/invoicing.md", renames.get)
    dreamer = ClaudeDreamer(client, Verifiers([links]), model="claude-haiku-5-5")
    fake.script(
        fake.tool_use("check_link", {"target": "[[teams/billing]]"}),
        fake.text('{"fixed_text": "invoices: see [[teams/invoicing]]"}'),
    )
    ((_claim, verdict),) = dreamer.check("MEMORY.md", entry("invoices: see [[teams/billing]]"))
    assert (verdict.status, verdict.fix, verdict.verifier) == (
        "fixable",
        "invoices: see [[teams/invoicing]]",
        "memory-links",
    )
    result = json.loads(fake.requests[1]["messages"][2]["content"][0]["content"])
    assert result["correct_value"] == "teams/invoicing"
    assert "check_link" in [t["name"] for t in fake.requests[0]["tools"]]


def test_claude_cannot_delete_without_a_verifier_saying_so(fake: FakeAnthropic) -> None:
    """With no tool call, Claude's answer alone changes nothing: the entry has no verdicts."""
    dreamer, verifiers = claude(fake, {})
    fake.script(fake.text('{"fixed_text": "something else entirely"}'))
    assert dreamer.check("a.md", entry("the repo acme/api#3 is open")) == []
    assert verifiers.calls == 0


def test_prose_is_not_sent_to_claude(fake: FakeAnthropic) -> None:
    """An entry with nothing that could be checked costs no call."""
    dreamer, _ = claude(fake, {})
    assert dreamer.check("a.md", entry("the vendor sandbox is slow under load")) == []
    assert fake.requests == []


def test_api_failure_falls_back_to_deterministic_checks(fake: FakeAnthropic) -> None:
    """A 529 (overloaded) makes the entry go through the deterministic claim checker."""
    dreamer, verifiers = claude(fake, {"acme/api#12": Verdict.true("open")})
    fake.script(fake.error(529))
    ((claim, verdict),) = dreamer.check("a.md", entry("acme/api#12 is open"))
    assert (claim.key, verdict.status, verifiers.calls) == ("acme/api#12", "true", 1)


def test_a_night_stops_asking_an_unavailable_claude(fake: FakeAnthropic) -> None:
    """Calls failing in a row with the API unavailable (529 here) stop the night's asking after
    UNAVAILABLE_AFTER: the rest goes the deterministic way without a request each (an outage
    met 2,630 requests in bench/faults.py). A call that succeeds in between starts the count
    again."""
    dreamer, _ = claude(fake, {})
    fake.script(fake.error(529), fake.error(529), fake.text("DIFFERENT"), fake.error(529))
    assert [dreamer.same("a", "b") for _ in range(4)] == [False] * 4
    assert dreamer.unavailable is None and len(fake.requests) == 4
    fake.default = lambda body: fake.error(529)
    assert not any(dreamer.same("a", "b") for _ in range(10))
    assert len(fake.requests) == 4 + UNAVAILABLE_AFTER - 1
    assert dreamer.unavailable is not None and "OverloadedError" in dreamer.unavailable
    assert dreamer.usage()["skipped"] == 10 - (UNAVAILABLE_AFTER - 1)
    assert dreamer.daily("2026-11-29", []) is None  # the daily note, too, is written without it


def test_claude_writes_the_daily_note_with_the_episodes_sources(fake: FakeAnthropic) -> None:
    """The note's lines come from Claude; each keeps the sources of the episodes it names."""
    dreamer, _ = claude(fake, {})
    episodes = [
        Episode(
            "thread_summary", "2026-11-29T10:00", "504s traced to the sandbox", ("https://s/1",)
        ),
        Episode("thread_summary", "2026-11-29T11:00", "thanks all", ("https://s/2",)),
    ]
    fake.script(
        fake.text('```json\n[{"text": "Checkout 504s: the vendor sandbox", "from": [0]}]\n```')
    )
    lines = dreamer.daily("2026-11-29", episodes)
    assert lines is not None
    assert [(ln.text, ln.sources) for ln in lines] == [
        ("Checkout 504s: the vendor sandbox", ("https://s/1",))
    ]
    fake.script(fake.text("not json"))
    assert dreamer.daily("2026-11-29", episodes) is None  # the deterministic note is written


def test_claude_reads_a_threads_case_and_old_episodes_alike(fake: FakeAnthropic) -> None:
    """A thread archived with problem / approach / outcome / evidence shows them to Claude; one
    archived before those fields existed is listed as before, without them."""
    dreamer, _ = claude(fake, {})
    case = {"problem": "504s after deploys", "approach": "read the runbook",
            "outcome": "warm the cache in the deploy job", "evidence": ["https://x/pr/1"]}  # fmt: skip
    new = {"type": "thread", "remember": ["warm caches on deploy"], **case}
    old = {"type": "thread", "remember": ["deploys freeze at noon on Fridays"]}
    episodes = [
        Episode("thread", "2026-11-29T10:00", "warm caches on deploy", ("https://s/1",), new),
        Episode("thread", "2026-11-29T11:00", "deploys freeze at noon", ("https://s/2",), old),
    ]
    fake.script(fake.text('[{"text": "Warm the cache on deploy", "from": [0, 1]}]'))
    assert dreamer.daily("2026-11-29", episodes) is not None
    prompt = fake.requests[-1]["messages"][0]["content"]
    listed = json.loads(prompt.split("as JSON:\n", 1)[1].split("\n\n", 1)[0])
    assert listed[0] == {"n": 0, "kind": "thread", "text": "warm caches on deploy",
                         "sources": ["https://s/1"], **case}  # fmt: skip
    assert set(listed[1]) == {"n", "kind", "text", "sources"}


def test_a_dream_with_claude_reports_its_tokens(fake: FakeAnthropic, tmp_path: Path) -> None:
    """A whole dream with Claude: the daily note is Claude's, usage is counted for the digest."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    line = {"type": "thread_summary", "at": "2026-11-29T10:00:00+00:00",
            "summary": "we moved the release train to Tuesdays", "source": "https://s/1"}  # fmt: skip
    store.write(
        [WriteFile("archive/2026-11-29.jsonl", json.dumps(line) + "\n")],
        author=Author("a", "a@x"),
        message="seed",
    )
    dreamer, verifiers = claude(fake, {})
    fake.script(fake.text('[{"text": "Release train: Tuesdays from now on", "from": [0]}]'))
    report = dream(store, now=datetime(2026, 11, 30, 3), verifiers=verifiers, checker=dreamer,
                   writer=dreamer)  # fmt: skip
    daily = fmt.parse(store.read("daily/2026-11-29.md")).entries
    assert [(e.text, e.get("source")) for e in daily] == [
        ("Release train: Tuesdays from now on", "https://s/1")
    ]
    assert dreamer.usage()["input_tokens"] > 0 and report.commits["daily"]


def test_claude_confirms_a_duplicate_before_tidy_merges_it(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """With a key, a candidate pair is merged only when Claude answers SAME; DIFFERENT keeps
    both, and the question names both entries."""
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    dreamer = ClaudeDreamer(client, Verifiers(), model="claude-test")
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    text = (
        "# Ops\n\n- staging is reset every Sunday night [added: 2026-10-01]\n"
        "- staging gets wiped each Sunday night [added: 2026-11-01]\n"
    )
    store.write([WriteFile("ops/staging.md", text)], author=Author("a", "a@x"), message="seed")
    fake.script(fake.text("DIFFERENT"))
    dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 2
    asked = fake.requests[-1]["messages"][0]["content"]
    assert "staging is reset every Sunday night" in asked and "wiped" in asked
    fake.script(fake.text("SAME"))
    dream(store, now=datetime(2026, 12, 1, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 1


def test_a_claude_error_on_a_possible_duplicate_merges_nothing(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """With a key, an API error on the question keeps both entries (a missed merge loses
    nothing); the pair is not merged by the words alone either."""
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    dreamer = ClaudeDreamer(client, Verifiers(), model="claude-test")
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    text = (
        "# Ops\n\n- staging is reset every Sunday night [added: 2026-10-01]\n"
        "- Staging is reset every Sunday night. [added: 2026-11-01]\n"
    )
    store.write([WriteFile("ops/staging.md", text)], author=Author("a", "a@x"), message="seed")
    fake.script(fake.error(500), fake.error(500), fake.error(500))
    dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 2
    assert store.read_or_none("forgotten.md") is None
