"""The fixed rules that find conventions and pitfalls in Slack messages (no LLM)."""

from __future__ import annotations

import pytest

from memory.lessons.thread_rules import CONVENTION, PITFALL, has_cue, lessons


@pytest.mark.parametrize(
    ("message", "kind", "text"),
    [
        ("we always drain the queue before a deploy", CONVENTION, "We always drain the queue"),
        ("Before a deploy, drain the queue.", CONVENTION, "Before a deploy, drain the queue"),
        ("make sure you snapshot the volume before resizing it", CONVENTION, "Make sure you"),
        ("whenever you rotate the key, restart the workers", CONVENTION, "Whenever you rotate"),
        ("fyi: never restart the primary during backups", PITFALL, "Never restart the primary"),
        ("Don't run migrations during peak hours, it locks orders", PITFALL, "Don't run"),
        ("<@U1> heads up: avoid force-pushing release branches", PITFALL, "Avoid force-pushing"),
    ],
)
def test_rules_people_state_are_lessons(message: str, kind: str, text: str) -> None:
    (found,) = lessons(message)
    assert found.kind == kind and found.text.startswith(text)


@pytest.mark.parametrize(
    "message",
    [
        "should we always drain the queue before a deploy?",  # a question
        "Do we never restart the primary during backups",  # a question without its mark
        "I think we always drain the queue before deploys",  # a hedge
        "we always drain before deploys iirc",  # a hedge at the end
        "> never restart the primary during backups\nthat's from the old wiki",  # a quote
        'the runbook line "never restart the primary" is outdated',  # quoted words
        "the vendor docs say never restart the primary during backups",  # reported
        "never deploy on fridays lol",  # a joke
        "don't deploy today, the freeze is on",  # one-off
        "after the deploy the api was slow",  # a report
        "I always forget to drain the queue",  # one person's habit
        "the batch job never finishes before 6",  # a fact about a thing
        "we need to fix the dashboard",  # a task, not a rule
        "don't worry about it",  # not a rule at all
        "never mind, it was the wrong host",  # the idiom
    ],
)
def test_what_is_not_a_lesson(message: str) -> None:
    assert lessons(message) == []


def test_one_message_may_teach_two_lessons_once_each() -> None:
    text = "Always drain the queue before a deploy. Never restart the primary during backups."
    assert [x.kind for x in lessons(text)] == [CONVENTION, PITFALL]
    assert (
        len(lessons("always page the DBA before failover. Always page the DBA before failover"))
        == 1
    )


def test_cues_pick_the_messages_worth_showing_claude() -> None:
    assert has_cue("we drain the queue before every deploy")
    assert not has_cue("should we drain the queue before a deploy?")
    assert not has_cue("checkout is slow again")
