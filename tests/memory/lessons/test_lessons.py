"""Lessons and the quality gate: tentative → active → revoked, episodes, the Claude judge."""

from __future__ import annotations

import json
from dataclasses import replace

from memory import format as fmt
from memory.lessons import planner as lessons
from memory.lessons import pull_requests as po
from memory.writes import AddEntry, AppendLine, ReplaceEntry, apply_ops

AGENT = "hippo-agent[bot]"
AGENTS = (AGENT,)
OLD = "import mock\n\ndef test_{n}():\n    client = mock.Mock()\n    assert client\n"
NEW = "from tests.fixtures import client\n\ndef test_{n}(client):\n    assert client\n"


def pr(number: int, old: str = OLD, new: str = NEW, **kw: object) -> po.PullFacts:
    path = f"tests/unit/test_{number}.py"
    diff = po.diff_texts(path, old.format(n=number), new.format(n=number))
    base = po.PullFacts(
        repo="octo/app",
        number=number,
        url=f"https://github.com/octo/app/pull/{number}",
        title=f"Agent fix {number}",
        opener=AGENT,
        merged=True,
        closed_by="alice",
        closed_by_bot=False,
        commits=(po.Commit(f"a{number}", AGENT, AGENT), po.Commit(f"h{number}", "alice", "alice")),
        files=(path,),
        human_diff=(diff,),
        agent_sha=f"a{number}",
        writers=frozenset({"alice", "bob"}),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def apply(current: str | None, plan: lessons.LessonPlan) -> str | None:
    files = {"conventions/octo/app.md": current}
    out = apply_ops(plan.ops, files.get)
    return out.changes.get("conventions/octo/app.md", current)


def only_entry(text: str | None) -> fmt.Entry:
    assert text is not None
    entries = fmt.parse(text).entries
    assert len(entries) == 1
    return entries[0]


def test_first_occurrence_is_tentative_with_a_deterministic_observation() -> None:
    """The first edited pull request adds a tentative entry citing it, worded as an observation."""
    plan = lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30")
    assert [type(op) for op in plan.ops] == [AddEntry]
    text = apply(None, plan)
    assert text is not None and text.startswith("# Conventions: octo/app\n")
    entry = only_entry(text)
    assert entry.text.startswith("Observed: people edit the agent's changes to tests/unit/*.py")
    assert "`fixtures`" in entry.text and "`mock`" in entry.text
    assert entry.get("status") == "tentative"
    assert entry.get_all("source") == ["https://github.com/octo/app/pull/1"]
    assert entry.get("added") == "2026-11-30"


def test_second_same_change_activates_and_lists_both_sources() -> None:
    """A second pull request with the same edit activates the lesson, both sources listed."""
    text = apply(None, lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30"))
    plan = lessons.plan(pr(2), po.MERGED_AFTER_CHANGES, text, today="2026-12-01")
    assert plan.became_active and plan.status == "active"
    assert [type(op) for op in plan.ops] == [ReplaceEntry]
    entry = only_entry(apply(text, plan))
    assert entry.get("status") == "active"
    assert entry.get_all("source") == [
        "https://github.com/octo/app/pull/1",
        "https://github.com/octo/app/pull/2",
    ]
    assert entry.get("added") == "2026-11-30"


def test_replaying_the_same_pull_request_changes_nothing() -> None:
    """The same pull request seen twice neither activates the lesson nor adds a source."""
    text = apply(None, lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30"))
    plan = lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, text, today="2026-11-30")
    assert plan.ops == [] and not plan.became_active and plan.status == "tentative"


def test_a_later_revert_revokes_with_reason_and_evidence_and_keeps_the_entry() -> None:
    """People putting the old way back revoke the active lesson, kept with reason and evidence."""
    text = apply(None, lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30"))
    text = apply(text, lessons.plan(pr(2), po.MERGED_AFTER_CHANGES, text, today="2026-11-30"))
    plan = lessons.plan(pr(3, old=NEW, new=OLD), po.MERGED_AFTER_CHANGES, text, today="2026-12-02")
    assert plan.status == "revoked" and len(plan.revoked) == 1
    entry = only_entry(apply(text, plan))
    assert entry.get("status") == "revoked"
    assert entry.get("evidence") == "https://github.com/octo/app/pull/3"
    assert "pull request #3" in (entry.get("reason") or "")
    assert len(entry.get_all("source")) == 2
    replay = lessons.plan(
        pr(3, old=NEW, new=OLD), po.MERGED_AFTER_CHANGES, apply(text, plan), today="2026-12-03"
    )
    assert replay.ops == [] and replay.status == "revoked"


def test_a_different_edit_starts_its_own_tentative_lesson() -> None:
    """An unrelated edit in another kind of file adds a second tentative entry."""
    text = apply(None, lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30"))
    docs = po.diff_texts("docs/guide.md", "Run make.\n", "Run `make test` before pushing.\n")
    other = pr(4, human_diff=(docs,), files=("docs/guide.md",))
    plan = lessons.plan(other, po.MERGED_AFTER_CHANGES, text, today="2026-11-30")
    assert plan.status == "tentative" and not plan.became_active
    assert len(fmt.parse(apply(text, plan) or "").entries) == 2


def test_untouched_and_system_outcomes_learn_nothing() -> None:
    """Merged untouched and closed by the system produce no lesson operations."""
    for outcome in (po.MERGED_UNTOUCHED, po.CLOSED_BY_SYSTEM):
        assert lessons.plan(pr(1), outcome, None, today="2026-11-30").ops == []


def test_closed_by_a_person_quotes_the_closing_comment() -> None:
    """A person's close becomes a tentative observation quoting their comment."""
    said = po.Comment("alice", "We pin versions in constraints.txt, not setup.py", "issue_comment")
    f = pr(5, merged=False, human_diff=(), files=("setup.py",), comments=(said,))
    plan = lessons.plan(f, po.CLOSED_BY_PERSON, None, today="2026-11-30")
    entry = only_entry(apply(None, plan))
    assert entry.text.startswith("Observed: a person closed the agent's pull request touching *.py")
    assert "constraints.txt" in entry.text and entry.get("status") == "tentative"


class FakeJudge:
    """A stand-in for Claude with fixed answers (the Claude adapter is tested on the wire)."""

    def __init__(self, line: str | None, same: bool | None) -> None:
        self.line = line
        self.answer = same
        self.asked: list[str] = []

    def write(self, summary: str) -> str | None:
        self.asked.append(summary)
        return self.line

    def same(self, existing: str, candidate: str) -> bool | None:
        return self.answer


def test_a_judge_writes_the_line_and_may_call_two_lessons_the_same() -> None:
    """With a judge, its line is the lesson and its 'same' verdict activates a lesson."""
    judge = FakeJudge("Tests use the shared fixtures in tests/fixtures, not inline mocks", True)
    plan = lessons.plan(pr(1), po.MERGED_AFTER_CHANGES, None, today="2026-11-30", judge=judge)
    text = apply(None, plan)
    assert (
        only_entry(text).text == "Tests use the shared fixtures in tests/fixtures, not inline mocks"
    )
    assert "+from tests.fixtures import client" in judge.asked[0]
    docs = po.diff_texts("docs/guide.md", "a\n", "b\n")
    other = pr(6, human_diff=(docs,), files=("docs/guide.md",))
    plan2 = lessons.plan(other, po.MERGED_AFTER_CHANGES, text, today="2026-11-30", judge=judge)
    assert plan2.became_active


def test_episode_line_records_outcome_files_stats_and_comments() -> None:
    """Every outcome becomes one JSON line in archive/<date>.jsonl, secrets redacted."""
    said = po.Comment("alice", "token ghp_" + "a" * 36 + " leaked", "issue_comment")
    f = pr(1, comments=(said,))
    plan = lessons.plan(f, po.MERGED_AFTER_CHANGES, None, today="2026-11-30")
    line = lessons.episode(
        f, po.MERGED_AFTER_CHANGES, plan, now="2026-11-30T10:00:00Z", agent_logins=AGENTS
    )
    assert isinstance(line, AppendLine) and line.path == "archive/2026-11-30.jsonl"
    record = json.loads(line.line)
    assert record["outcome"] == "merged_after_changes"
    assert record["url"] == "https://github.com/octo/app/pull/1"
    assert record["stats"]["commits"] == 2 and record["stats"]["human_commits"] == 1
    assert record["files"] == ["tests/unit/test_1.py"]
    assert record["lesson"]["status"] == "tentative"
    assert "ghp_" not in line.line
    apply_ops([line], {}.get)  # the secrets scan of AppendLine accepts it


def test_two_silent_closes_do_not_activate_a_lesson() -> None:
    """Closes without any comment stay separate tentative observations: nothing to generalize."""
    first = pr(7, merged=False, human_diff=(), files=("setup.py",))
    text = apply(None, lessons.plan(first, po.CLOSED_BY_PERSON, None, today="2026-11-30"))
    second = pr(8, merged=False, human_diff=(), files=("setup.py",))
    plan = lessons.plan(second, po.CLOSED_BY_PERSON, text, today="2026-11-30")
    assert not plan.became_active and plan.status == "tentative"
