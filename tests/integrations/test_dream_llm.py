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

from integrations.dream_llm import JUDGE_MODEL, UNAVAILABLE_AFTER, ClaudeDreamer
from memory import format as fmt
from memory.dream.daily import Episode
from memory.dream.judged import Judgment
from memory.dream.merge import JUDGE_CAP
from memory.dream.report import Report
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
    said = [dreamer.same("a", "b") for _ in range(4)]
    assert said == [None, None, Judgment(False, "no reason given"), None]
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


STAGING = (
    "# Ops\n\n- staging is reset every Sunday night [added: 2026-10-01]\n"
    "- staging gets wiped each Sunday night [added: 2026-11-01]\n"
)


def ops_store(tmp_path: Path, text: str = STAGING) -> Store:
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    store.write([WriteFile("ops/staging.md", text)], author=Author("a", "a@x"), message="seed")
    return store


def judge(fake: FakeAnthropic) -> ClaudeDreamer:
    client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
    return ClaudeDreamer(client, Verifiers(), model="claude-test")


def tidy_message(report: Report) -> str:
    return next(s.message for s in report.steps if s.step == "tidy")


def test_claude_settles_a_possible_duplicate_with_its_reason(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """With a key, a possible duplicate (close in meaning, not provably one statement) goes to
    the cheap judge model; its "same" merges, with its reason in tidy's commit."""
    store, dreamer = ops_store(tmp_path), judge(fake)
    fake.script(fake.text('{"same": true, "reason": "wiped and reset say the same here"}'))
    report = dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 1
    asked = fake.requests[-1]
    assert asked["model"] == JUDGE_MODEL
    assert "staging is reset" in asked["messages"][0]["content"]
    assert "wiped" in asked["messages"][0]["content"]
    assert "wiped and reset say the same here" in tidy_message(report)


def test_claude_is_asked_about_a_pair_once(fake: FakeAnthropic, tmp_path: Path) -> None:
    """Claude's "different" keeps both entries, out of the person's list, and is remembered in
    .dream/judged.json by the pair's text: the next nights do not ask again."""
    store, dreamer = ops_store(tmp_path), judge(fake)
    fake.script(fake.text('{"same": false, "reason": "a reset keeps the seed data"}'))
    report = dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 2
    assert "a reset keeps the seed data" in tidy_message(report)
    assert report.extra.get("possible_duplicates") == []
    assert "a reset keeps the seed data" in store.read(".dream/judged.json")
    asked = len(fake.requests)
    report = dream(store, now=datetime(2026, 12, 1, 3), confirm=dreamer.same)
    assert len(fake.requests) == asked  # remembered: not asked again
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 2


def test_a_claude_error_leaves_the_pair_to_a_person_and_asks_again(
    fake: FakeAnthropic, tmp_path: Path
) -> None:
    """An API error keeps both entries (a missed merge loses nothing), lists the pair for a
    person, remembers nothing: the next night asks again."""
    store, dreamer = ops_store(tmp_path), judge(fake)
    fake.script(fake.error(500))
    report = dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 2
    assert [p.other_text for p in report.extra["possible_duplicates"]] == [
        "staging gets wiped each Sunday night"
    ]
    assert store.read_or_none(".dream/judged.json") is None
    fake.script(fake.text('{"same": true, "reason": "one fact"}'))
    dream(store, now=datetime(2026, 12, 1, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 1


def test_a_refusal_leaves_the_pair_to_a_person_once(fake: FakeAnthropic, tmp_path: Path) -> None:
    """Claude declining to judge (stop_reason refusal) lists the pair for a person, and is
    remembered: the pair is not asked again."""
    store, dreamer = ops_store(tmp_path), judge(fake)
    fake.script(fake.refusal())
    report = dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    (pair,) = report.extra["possible_duplicates"]
    assert pair.why == "Claude declined to judge this pair"
    asked = len(fake.requests)
    dream(store, now=datetime(2026, 12, 1, 3), confirm=dreamer.same)
    assert len(fake.requests) == asked


def test_a_provable_duplicate_merges_without_asking(fake: FakeAnthropic, tmp_path: Path) -> None:
    """A pair provably one statement merges by the rule alone, key or not: Claude is not
    asked (nor is an API that would fail)."""
    text = (
        "# Ops\n\n- staging is reset every Sunday night [added: 2026-10-01]\n"
        "- Staging is reset every Sunday night. [added: 2026-11-01]\n"
    )
    store, dreamer = ops_store(tmp_path, text), judge(fake)
    fake.script(fake.error(500))
    dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fmt.parse(store.read("ops/staging.md")).entries) == 1
    assert fake.requests == []


def test_the_night_asks_claude_about_at_most_its_cap(fake: FakeAnthropic, tmp_path: Path) -> None:
    """Past JUDGE_CAP questions a night, the other possible duplicates wait for a person (or a
    later night): no more calls."""
    lines = [
        f"- job-{i} store is reset every Sunday night [added: 2026-10-01]\n"
        f"- job-{i} store gets wiped each Sunday night [added: 2026-11-01]\n"
        for i in range(JUDGE_CAP + 3)
    ]
    store, dreamer = ops_store(tmp_path, "# Jobs\n\n" + "".join(lines)), judge(fake)
    fake.default = lambda _body: fake.text('{"same": false, "reason": "two facts"}')
    report = dream(store, now=datetime(2026, 11, 30, 3), confirm=dreamer.same)
    assert len(fake.requests) == JUDGE_CAP
    assert len(report.extra["possible_duplicates"]) == 3
