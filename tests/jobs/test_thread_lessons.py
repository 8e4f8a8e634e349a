"""Lessons taught in Slack threads: a team member's rule becomes a tentative lesson at the agent's
turn, a second teacher makes it active; guests, other organisations and bots teach nothing; a
redelivery adds nothing; with a key Claude reads the thread, and its error means no lesson.
Real git, Redis and slack_sdk/anthropic clients against the loopback fakes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from jobs import oplog
from jobs.agent import thread_lessons
from jobs.agent.tasks import answer
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author
from memory.writes import AddEntry
from tests.fakes.anthropic import FakeAnthropic, Reply
from tests.fakes.slack import SECRET, SlackFake

ANN = Author("ann", "ann@example.com")
T1, T2 = "1700000000.000100", "1700000500.000100"
TEAM = "conventions/team.md"


def _runtime(
    tmp_path: Path, slack: SlackFake, redis_url: str, claude: FakeAnthropic | None
) -> Runtime:
    config = Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack.url,
        anthropic_api_key="test" if claude else "",
        anthropic_base_url=claude.url if claude else "",
        model="claude-sonnet-5-5",
        small_model="claude-haiku-5-5",
    )
    rt = Runtime(config)
    rt.store.init()
    rt.store.write([AddEntry("MEMORY.md", "deploys at 10:00")], author=ANN, message="seed")
    make_celery(rt)
    return rt


@pytest.fixture
def plain(tmp_path: Path, slack_fake: SlackFake, redis_url: str) -> Iterator[Runtime]:
    rt = _runtime(tmp_path, slack_fake, redis_url, None)
    yield rt
    rt.close()


def _said(thread: str, *messages: tuple[str, str, str]) -> dict[str, Any]:
    """conversations.replies' answer: (user or 'bot', ts suffix, text) after the parent."""
    parent = {"type": "message", "user": "W1", "text": "deploying checkout", "ts": thread}
    out = [parent]
    for who, n, text in messages:
        m: dict[str, Any] = {"type": "message", "text": text, "ts": f"{thread[:10]}.{n}"}
        m.update({"bot_id": "B1"} if who == "bot" else {"user": who})
        out.append(m)
    return {"ok": True, "messages": out}


def _ask(thread: str, n: int, text: str = "what else before deploying?") -> Question:
    return Question(
        "T111", "C111", thread, f"{int(thread[:10]) + 1}.00000{n}", "W222", text, f"Ev{n}"
    )


def _entries(rt: Runtime) -> list[fmt.Entry]:
    return fmt.parse(rt.store.read_or_none(TEAM) or "").entries


def test_a_team_members_rule_is_a_tentative_lesson_then_active_on_a_second_thread(
    plain: Runtime, slack_fake: SlackFake
) -> None:
    rt = plain
    slack_fake.users.update(
        {"W9": {"is_restricted": True}, "W7": {"team_id": "T999"}, "W5": {"is_bot": True}}
    )
    thread = _said(
        T1,
        ("W1", "000200", "reminder: we always drain the queue before a deploy"),
        ("W9", "000300", "never restart the primary during backups"),  # a guest
        ("W7", "000400", "never skip the canary before a deploy"),  # another organisation
        ("W5", "000450", "always page the DBA before failover"),  # a bot user
        ("bot", "000500", "always restart everything before a deploy"),  # a bot message
        ("W3", "000600", "should we always run the smoke tests after a deploy?"),  # a question
    )
    slack_fake.script("conversations.replies", (200, thread, {}))
    take_turn(rt, _ask(T1, 1))
    (lesson,) = _entries(rt)
    assert lesson.text == "We always drain the queue before a deploy"
    assert lesson.get("status") == "tentative" and lesson.get("kind") == "pattern"
    source = f"https://test.slack.com/archives/C111/p1700000000000200?thread_ts={T1}&cid=C111"
    assert lesson.get("source") == source
    assert lesson.get("taught-by") == f"W1 in slack C111 {T1}"
    posted = slack_fake.wait_for("chat.postMessage")[0].form["text"]
    assert "Learned from this thread: “We always drain the queue before a deploy”" in posted
    assert "tentative convention in `conventions/team.md`" in posted
    repo = pygit2.Repository(rt.config.memory_remote)
    lesson_commit = next(c for c in repo.walk(repo.head.target) if "Slack thread" in c.message)
    assert lesson_commit.author.name == "hippo slack"
    assert f"Hippo-Key: slack-lesson:T111:C111:{T1[:10]}.000200:0" in lesson_commit.message
    # the same event again (Slack's retry), and a retried turn reading the same messages
    head = rt.store.head()
    assert answer.apply(kwargs={"channel": "C111", "text": "x", "event_id": "Ev1"}).get() == (
        "duplicate"
    )
    said = _thread_said(thread)
    again = thread_lessons.learn(rt, team="T111", channel="C111", thread_ts=T1, msgs=said)
    assert again == [] and rt.store.sync() == head
    # another person, in another thread, says it in other words: active, both sources
    slack_fake.script(
        "conversations.replies",
        (200, _said(T2, ("W2", "000200", "Drain the queue before every deploy.")), {}),
    )
    take_turn(rt, _ask(T2, 2))
    (lesson,) = _entries(rt)
    assert lesson.get("status") == "active" and len(lesson.get_all("source")) == 2
    assert lesson.get_all("taught-by") == [f"W1 in slack C111 {T1}", f"W2 in slack C111 {T2}"]
    assert oplog.day(rt.redis, rt.config.workspace, oplog.today())["promotions"] == 1
    assert "active convention" in slack_fake.wait_for("chat.postMessage", 2)[1].form["text"]


def _thread_said(reply: dict[str, Any]) -> list[Any]:
    from integrations.slack_thread import Said

    return [
        Said(m["user"], m["text"], m["ts"], m["text"]) for m in reply["messages"] if "user" in m
    ]


def test_with_a_key_claude_reads_the_thread_and_its_error_means_no_lesson(
    tmp_path: Path, slack_fake: SlackFake, redis_url: str
) -> None:
    with FakeAnthropic() as claude:
        rt = _runtime(tmp_path, slack_fake, redis_url, claude)
        try:
            seen: list[str] = []

            def reply(body: dict[str, Any]) -> Reply:
                system = body["system"] if isinstance(body["system"], str) else ""
                if "list the conventions" not in system:
                    return claude.text("An answer.")
                seen.append(body["messages"][0]["content"])
                if len(seen) == 1:
                    lesson = '[{"message": 1, "kind": "pitfall", "lesson": "Never restart the '
                    return claude.text(lesson + 'primary while a backup runs"}]')
                return claude.error(400)

            claude.default = reply
            slack_fake.users["W9"] = {"is_ultra_restricted": True}
            thread = _said(
                T1,
                ("W1", "000200", "careful: restarting the primary during backups never ends well"),
                ("W9", "000300", "always restart the primary during backups"),
            )
            slack_fake.script("conversations.replies", (200, thread, {}))
            take_turn(rt, _ask(T1, 1))
            (lesson,) = _entries(rt)
            assert lesson.text == "Never restart the primary while a backup runs"
            assert lesson.get("kind") == "pitfall" and lesson.get("status") == "tentative"
            assert "W9" not in seen[0] and "always restart" not in seen[0]  # a guest's words
            head = rt.store.head()
            thread = _said(T2, ("W2", "000200", "never restart the primary during backups"))
            slack_fake.script("conversations.replies", (200, thread, {}))
            take_turn(rt, _ask(T2, 2))
            assert len(seen) == 2 and len(_entries(rt)) == 1
            assert _entries(rt)[0].get("status") == "tentative"  # the error taught nothing
            assert rt.store.read_or_none(TEAM) == rt.store.read_or_none(TEAM, head)
        finally:
            rt.close()


@pytest.mark.integration
def test_through_the_slack_door_a_redelivered_mention_teaches_once(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """A signed mention in a thread → /slack/events → a real worker: the thread's rule lands once
    in conventions/team.md; Slack's retry of the same event adds no commit and no reply."""
    from bot.app import create_app
    from tests.slack_helpers import mention, post

    rt = celery_worker_for
    rt.store.write([AddEntry("MEMORY.md", "deploys at 10:00")], author=ANN, message="seed")
    thread = "1700000000.000100"
    slack_fake.script(
        "conversations.replies",
        (200, _said(thread, ("W1", "000200", "never restart the primary during backups")), {}),
    )
    client = create_app(rt.config, rt).test_client()
    ask = mention("what else before the backup window?", event_id="EvL1", ts="1700000001.000001")
    ask["event"]["thread_ts"] = thread
    post(client, ask)
    reply = slack_fake.wait_for("chat.postMessage")[0].form["text"]
    assert "Learned from this thread: “Never restart the primary during backups”" in reply
    (lesson,) = _entries(rt)
    assert (
        lesson.get("kind") == "pitfall" and lesson.get("taught-by") == f"W1 in slack C111 {thread}"
    )
    head = rt.store.sync()
    post(client, ask)  # Slack's retry of the same event
    post(client, mention("ok?", event_id="EvL2", ts="1700000002.000001"))  # a later question
    # the worker runs in order: had the retry been answered, it would be the second reply
    second = slack_fake.wait_for("chat.postMessage", 2)[1].form
    assert second["thread_ts"] == "1700000002.000001"
    assert len(_entries(rt)) == 1 and rt.store.read_or_none(TEAM) == rt.store.read_or_none(
        TEAM, head
    )
