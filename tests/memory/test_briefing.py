"""Briefings (memory/prompts/briefing.py): what an agent reads before it works on a task."""

from __future__ import annotations

import pytest

from memory.git import Author, Store
from memory.prompts import briefing
from memory.prompts.briefing import BadBrief, build, estimate_tokens, path_matches, task_words
from memory.repo_prefs import BadRepo
from memory.writes import AddTombstone, WriteFile

ANN = Author("ann", "ann@example.com")
PR = "https://github.com/acme/shop/pull/"
MOCKS = (
    "Observed: people edit the agent's changes to tests/api/*.py before merging: they added "
    "`fixture` and removed `mock`, `patch`"
)
CONVENTIONS = f"""# Conventions: acme/shop

- Observed: a person closed the agent's pull request touching docs/*.md: "too long" [source: {PR}3; status: tentative; scope: docs/*.md; signature: closed docs/*.md +long]
- {MOCKS} [source: {PR}7; source: {PR}9; by: github; scope: tests/api/*.py; signature: edit tests/api/*.py +fixture -mock -patch; status: active]
- Observed: people put `print` back in src/*.py [source: {PR}5; status: revoked; reason: undone; scope: src/*.py]
- money is always integer cents in src/billing [source: https://wiki.test/money; kind: pitfall]
"""
PREFS = "# Repository acme/shop: how to work here\n\n- when you open a pull request here, assess its impact on billing [source: https://slack.test/p1; by: U1]\n"
REFUNDS = "# refunds\n\n- the refund api retries twice on a 502 [source: https://x.test/1]\n- the refund api once retried forever [status: revoked; source: https://x.test/0]\n"


@pytest.fixture
def store(store: Store) -> Store:
    """Seeded with conventions, preferences, a topic and a tombstone."""
    s = store
    s.write(
        [
            WriteFile("conventions/acme/shop.md", CONVENTIONS),
            WriteFile("preferences/repos/acme/shop.md", PREFS),
            WriteFile("services/refunds.md", REFUNDS),
            AddTombstone(
                "forgotten.md",
                "the refund api is owned by team ledger",
                (("removed", "2026-11-01"), ("reason", "moved")),
            ),
        ],
        author=ANN,
        message="seed",
    )
    return s


def test_lessons_for_the_paths_come_first_with_source_and_status(store: Store) -> None:
    """The lesson whose recorded scope matches a given path leads, active, with both sources;
    the repository's preferences and memory hits follow, each line naming its source."""
    b = build(
        store, "add a test for the refund api", repo="acme/shop", paths=["tests/api/test_refund.py"]
    )
    first = b.lines[0]
    assert (first.section, first.status, first.text) == ("conventions", "active", MOCKS)
    assert first.source == f"{PR}7, {PR}9" and first.where == "conventions/acme/shop.md:4"
    sections = [line.section for line in b.lines]
    assert sections.index("repository preferences") > sections.index("conventions")
    assert any("assess its impact on billing" in line.text for line in b.lines)
    memory = [line for line in b.lines if line.section == "memory"]
    assert memory[0].text == "the refund api retries twice on a 502"
    assert memory[0].source == "https://x.test/1"
    assert b.text.splitlines()[4].startswith(f"- [active] {MOCKS} (source: {PR}7, {PR}9;")


def test_tentative_marked_revoked_and_forgotten_never(store: Store) -> None:
    """Tentative lessons say so; revoked lessons, revoked entries and tombstones never appear."""
    b = build(store, "refund api docs print", repo="acme/shop")
    assert (
        "- [tentative] Observed: a person closed the agent's pull request touching docs" in b.text
    )
    assert "print" not in " ".join(line.text for line in b.lines)
    assert "retried forever" not in b.text and "team ledger" not in b.text
    assert "- [active pitfall] money is always integer cents" in b.text


def test_without_paths_the_task_words_rank_the_lessons(store: Store) -> None:
    """No paths: active lessons sharing the task's words (or their signature's) lead."""
    b = build(store, "replace mock.patch with a fixture", repo="acme/shop")
    assert b.lines[0].text == MOCKS


def test_budget_is_kept_and_stated(store: Store) -> None:
    """The whole text stays within the budget, states its own estimate, and says how many lines
    were left out; the default budget is 1,500 tokens."""
    full = build(store, "add a test for the refund api", repo="acme/shop")
    assert full.budget == 1500 and full.left_out == 0
    assert f"~{full.tokens:,} of 1,500 tokens" in full.text
    assert full.tokens == estimate_tokens(full.text) <= 1500
    small = build(store, "add a test for the refund api", repo="acme/shop", budget=150)
    assert small.tokens == estimate_tokens(small.text) <= 150
    assert small.left_out > 0 and f"{small.left_out} more lines left out" in small.text
    assert len(small.lines) + small.left_out == len(full.lines)


def test_deterministic(store: Store) -> None:
    """The same tree and arguments give the same bytes."""
    args = {"repo": "acme/shop", "paths": ["tests/api/x.py", "docs/"]}
    assert (
        build(store, "refund api test", **args).text == build(store, "refund api test", **args).text
    )


def test_channel_preferences_when_given(store: Store) -> None:
    """From Slack, the channel's preferences are their own section."""
    chan = ("preferences/channels/dev.md", "# dev\n\n- answer in one line [by: U2]\n")
    b = build(store, "refund", channel=chan)
    line = next(x for x in b.lines if x.section == "channel preferences")
    assert (line.text, line.source) == ("answer in one line", "preferences/channels/dev.md:3")


def test_bad_requests_say_what_to_give(store: Store) -> None:
    """An empty task, a budget out of range or a repository that is not owner/name is refused."""
    with pytest.raises(BadBrief, match="what the task is"):
        build(store, "   ")
    with pytest.raises(BadBrief, match="budget"):
        build(store, "x y z", budget=5)
    with pytest.raises(BadRepo, match="owner/name"):
        build(store, "refund", repo="not a repo")


def test_nothing_known_says_so(store: Store) -> None:
    b = build(store, "zebra quantum", repo="acme/other")
    assert b.lines == () and "Nothing in memory for this yet." in b.text


def test_path_matching_follows_recorded_scopes() -> None:
    """A file matches its directory and extension; a folder matches scopes inside it."""
    assert path_matches("tests/api/test_x.py", "tests/api/*.py")
    assert path_matches("./tests/api/", "tests/api/*.py") and path_matches(
        "tests", "tests/api/*.py"
    )
    assert not path_matches("tests/api/conftest.js", "tests/api/*.py")
    assert not path_matches("tests/apix/a.py", "tests/api/*.py")
    assert path_matches("Makefile", "Makefile") and path_matches("setup.py", "*.py")


def test_task_words_drop_filler() -> None:
    assert task_words("Add a test for the Refund API, please") == ["test", "refund", "api"]


def test_estimate_leans_high_for_other_scripts() -> None:
    assert estimate_tokens("abcd" * 10) == 10
    assert estimate_tokens("返金") == 2  # six bytes
    assert briefing.DEFAULT_BUDGET == 1500


def test_agents_entries_show_their_kind_status_and_dispute(store: Store) -> None:
    """What an agent wrote through the gate (memory/trust/agent_gate.py) is marked tentative with its kind;
    a line that contradicts an active entry says which; a revoked one never shows."""
    person = "the refund api retries twice on a 502"
    agent = "the refund api retries three times on a 502"
    text = (
        REFUNDS
        + f"- {agent} [by: claude-code; kind: fact; status: tentative; contradicts: {person}]\n"
        + "- refund exports need the ledger VPN [by: cursor; kind: pitfall; status: tentative]\n"
        + "- refund exports run hourly [by: cursor; kind: fact; status: revoked]\n"
    )
    store.write([WriteFile("services/refunds.md", text)], author=ANN, message="agents")
    b = build(store, "refund api retries exports")
    assert f"- [tentative fact; contradicts “{person}”] {agent} (source: " in b.text
    assert "- [tentative pitfall] refund exports need the ledger VPN" in b.text
    assert f"- [active] {person}" in b.text and "hourly" not in b.text


TEAM = """# Conventions: the team

- We always drain the queue before a deploy [source: https://t.slack.com/archives/C1/p1; by: slack; status: active; kind: pattern]
- Never restart the primary during backups [source: https://t.slack.com/archives/C1/p2; by: slack; status: tentative; kind: pitfall]
- Always page the DBA before a failover [source: https://t.slack.com/archives/C1/p3; status: revoked; kind: pattern]
"""


def test_the_teams_conventions_that_match_the_question_lead_without_a_repository(
    store: Store,
) -> None:
    """No repository: the team's lessons sharing the question's words come first (the ones
    sharing none stay out, revoked ones never show), then memory's lines."""
    store.write([WriteFile("conventions/team.md", TEAM)], author=ANN, message="team lessons")
    b = build(store, "how do we deploy the queue workers?")
    first = b.lines[0]
    assert (first.section, first.status, first.kind) == ("conventions", "active", "pattern")
    assert first.text == "We always drain the queue before a deploy"
    assert first.where == "conventions/team.md:3"
    assert not any("primary" in line.text or "DBA" in line.text for line in b.lines)
    assert "Conventions and pitfalls:\n- [active pattern] We always drain" in b.text
    pit = build(store, "may I restart the primary tonight? failover planned")
    assert [x.text for x in pit.lines if x.section == "conventions"] == [
        "Never restart the primary during backups"
    ]
    assert not any(x.where.startswith("conventions/team.md") for x in pit.lines[1:])
