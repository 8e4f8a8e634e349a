"""Claude's answer naming a thread's lessons: only well-formed lessons citing a message it was
shown are kept (integrations/thread_lessons_llm.py)."""

from __future__ import annotations

from integrations.thread_lessons_llm import Extracted, parse


def test_only_lessons_citing_a_shown_message_are_kept() -> None:
    answer = """```json
    [{"message": 2, "kind": "pitfall", "lesson": "Never restart the primary during backups"},
     {"message": 3, "kind": "pitfall", "lesson": "out of range"},
     {"message": 1, "kind": "fact", "lesson": "not a lesson kind"},
     {"message": 1, "kind": "convention", "lesson": "two\\nlines"},
     {"message": "1", "kind": "convention", "lesson": "not a number"},
     "not an object"]
    ```"""
    assert parse(answer, 2) == [Extracted(1, "pitfall", "Never restart the primary during backups")]


def test_an_answer_that_is_not_json_is_no_lesson() -> None:
    assert parse("Sure! The team always drains the queue.", 3) == []
    assert parse('{"message": 1}', 3) == []
    assert parse("[]", 3) == []
