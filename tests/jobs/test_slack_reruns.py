"""A task rerun after its commit landed (the worker died before it replied) still says what it did."""

from __future__ import annotations

import json

import pytest

from jobs.runtime import Runtime
from memory import notes
from memory.git import Author
from memory.writes import AddEntry
from tests.fakes.slack import SlackFake
from tests.waiting import until

pytestmark = pytest.mark.integration
PERSON = Author("test person", "person@example.com")


def seed(rt: Runtime, *lines: str) -> None:
    ops = [
        AddEntry("inbox.md", line, (("source", f"https://src.test/{i}"),))
        for i, line in enumerate(lines)
    ]
    rt.store.write(ops, author=PERSON, message="seed inbox.md")


def test_forget_rerun_after_its_commit_replies_forgot(
    slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A forget redelivered after its commit (same task id, died mid-reply) says "Forgot", once."""
    rt = celery_worker_for
    seed(rt, "the nightly batch alert is expected")
    # The first run: its commit landed, then the worker died while posting the reply.
    notes.forget(
        rt.store, "the nightly batch alert", today="2026-11-30", author=PERSON, key="slack:EvGone"
    )
    rt.redis.set("hippo:slack:replied:slack:EvGone", "sending:task-f")
    kwargs = dict(
        key="slack:EvGone",
        channel="C111",
        ts="3.000001",
        thread_ts="3.000001",
        user="W222",
        query="the nightly batch alert",
    )
    rt.celery.send_task("hippo.slack.forget", kwargs=kwargs, task_id="task-f")
    [reply] = [c.form for c in slack_fake.wait_for("chat.postMessage")]
    assert reply["text"].startswith("Forgot") and "forgotten.md" in reply["text"]
    assert reply["thread_ts"] == "3.000001"
    forgets = [c for c in rt.store.log(limit=10) if c.summary.startswith("forget:")]
    assert len(forgets) == 1


def test_pick_rerun_after_its_commit_edits_the_question_to_forgot(
    slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A button pick redelivered after its commit edits the question to "Forgot", not "gone"."""
    rt = celery_worker_for
    seed(rt, "the batch alert fires nightly", "the batch alert pages nobody")
    matches = [
        ["inbox.md", "the batch alert fires nightly"],
        ["inbox.md", "the batch alert pages nobody"],
    ]
    rt.redis.set(
        "hippo:slack:question:slack:EvAsk",
        json.dumps({"query": "the batch alert", "matches": matches}),
    )
    notes.forget(
        rt.store,
        "the batch alert",
        today="2026-11-30",
        author=PERSON,
        key="slack:click-1",
        pick=[("inbox.md", "the batch alert pages nobody")],
    )
    kwargs = dict(
        key="slack:click-1",
        channel="C111",
        user="W222",
        question="slack:EvAsk",
        pick=1,
        message_ts="4.000001",
    )
    rt.celery.send_task("hippo.slack.forget_pick", kwargs=kwargs, task_id="task-p")
    [update] = [c.form for c in slack_fake.wait_for("chat.update")]
    assert update["text"].startswith("Forgot") and "pages nobody" in update["text"]
    assert "fires nightly" in rt.store.read("inbox.md")
    forgets = [c for c in rt.store.log(limit=10) if c.summary.startswith("forget:")]
    assert len(forgets) == 1


def test_instructions_remove_rerun_removes_nothing_more(
    slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """`remove 1` run again after its commit (same key) leaves the next instruction in place."""
    rt = celery_worker_for
    path = "preferences/channels/dev.md"
    rt.store.write(
        [AddEntry(path, "reply in threads only"), AddEntry(path, "link the runbook")],
        author=PERSON,
        message="seed",
    )
    kwargs = dict(key="slack:t-rm", channel="C111", user="W222", number="1", channel_name="dev")
    rt.celery.send_task("hippo.slack.instructions_remove", kwargs=kwargs, task_id="task-r")
    slack_fake.wait_for("chat.postMessage")
    # The first run records its reply as sent just after the post: wait for it, or the test's
    # "died mid-reply" marker below is overwritten and the rerun rightly posts nothing.
    replied = "hippo:slack:replied:slack:t-rm"
    until(lambda: (rt.redis.get(replied) or b"").startswith(b"sent:"), what="the reply recorded")
    rt.redis.set(replied, "sending:task-r")  # as if it died mid-reply
    rt.celery.send_task("hippo.slack.instructions_remove", kwargs=kwargs, task_id="task-r")
    first, again = (c.form["text"] for c in slack_fake.wait_for("chat.postMessage", 2))
    assert first.startswith("Removed instruction 1") and again.startswith("Removed instruction 1")
    text = rt.store.read(path)
    assert "link the runbook" in text and "threads only" not in text
