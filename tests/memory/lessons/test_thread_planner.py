"""Lessons taught in Slack threads go through the lessons' gate: tentative, then active when a
second independent teacher (another thread, or another person) confirms them."""

from __future__ import annotations

from memory import format as fmt
from memory.lessons.thread_planner import TEAM_CONVENTIONS, TEAM_TITLE, ThreadLesson, plan
from memory.trust.proposals import pending
from memory.writes import apply_ops

T1, T2 = "slack C1 1700000000.000100", "slack C1 1700000500.000100"
LINK = "https://t.slack.com/archives/C1/p{}?thread_ts={}&cid=C1"


def _lesson(text: str, person: str, thread: str, ts: str, kind: str = "convention") -> ThreadLesson:
    source = LINK.format(ts.replace(".", ""), thread.split()[-1])
    return ThreadLesson(kind, text, source, person, thread)  # type: ignore[arg-type]


def _apply(current: str | None, lesson: ThreadLesson) -> tuple[str, list[object]]:
    out = plan(lesson, TEAM_CONVENTIONS, current, today="2026-12-02", title=TEAM_TITLE)
    changed = apply_ops(out.ops, {TEAM_CONVENTIONS: current}.get).changes
    return changed.get(TEAM_CONVENTIONS) or current or "", list(out.ops)


def _entry(text: str) -> fmt.Entry:
    (entry,) = fmt.parse(text).entries
    return entry


def test_first_tentative_then_active_on_another_thread() -> None:
    first = _lesson("We always drain the queue before a deploy", "W1", T1, "1700000001.000001")
    text, ops = _apply(None, first)
    e = _entry(text)
    assert e.get("status") == "tentative" and e.get("kind") == "pattern"
    assert e.get("source") == first.source and e.get("taught-by") == f"W1 in {T1}"
    assert e.get("by") == "slack" and len(ops) == 1
    again = _lesson("drain the queue before every deploy", "W1", T1, "1700000002.000001")
    assert _apply(text, again)[1] == []  # one person in one thread counts once
    other = _lesson("Make sure you drain the queue before deploying", "W1", T2, "1700000501.0")
    text, _ = _apply(text, other)
    e = _entry(text)
    assert e.get("status") == "active" and e.get_all("source") == [first.source, other.source]
    assert e.text == "We always drain the queue before a deploy"


def test_a_second_person_in_the_same_thread_confirms() -> None:
    pit = "Never restart the primary during backups"
    text, _ = _apply(None, _lesson(pit, "W1", T1, "1700000001.000001", "pitfall"))
    assert _entry(text).get("kind") == "pitfall"
    text, _ = _apply(text, _lesson(pit, "W2", T1, "1700000003.000001", "pitfall"))
    assert _entry(text).get("status") == "active"


def test_a_replayed_message_changes_nothing() -> None:
    first = _lesson("We always drain the queue before a deploy", "W1", T1, "1700000001.000001")
    text, _ = _apply(None, first)
    assert _apply(text, first)[1] == []


def test_a_contradicting_rule_is_added_beside_it_for_a_person() -> None:
    text, _ = _apply(None, _lesson("Never restart the primary during backups", "W1", T1, "1.1"))
    text, ops = _apply(text, _lesson("Always restart the primary during backups", "W2", T2, "2.1"))
    old, new = fmt.parse(text).entries
    assert old.get("status") == "tentative" and new.get("contradicts") == old.text
    # listed for a person to settle, with the agents' proposals (digest and console buttons)
    (proposal,) = pending({TEAM_CONVENTIONS: text})
    assert (proposal.kind, proposal.text, proposal.about) == ("edit", new.text, old.text)
    # a second voice does not settle a dispute: a person does
    _, ops = _apply(text, _lesson("Always restart the primary during backups", "W3", T1, "3.1"))
    assert ops == []


def test_a_persons_own_line_is_left_as_it_is() -> None:
    text = f"# {TEAM_TITLE}\n\n- we always drain the queue before a deploy [by: ann]\n"
    assert _apply(text, _lesson("Drain the queue before every deploy", "W1", T1, "1.1"))[1] == []
